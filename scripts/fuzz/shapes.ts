// The verdict on one answer: never a 5xx, and always in its interface's
// documented error shape (docs/json-rpc.md, docs/rest-api.md, docs/graphql.md,
// docs/errors.md). Each check returns what is wrong, or undefined.
import type { FuzzResponse } from './http.ts'

/** docs/json-rpc.md's error codes, plus 3 (a revert Geth passes through with its data). */
export const JSON_RPC_CODES = new Set([-32700, -32600, -32601, -32602, -32000, -32001, -32002, -32004, -32005, 3])
/**
 * Node's HTTP parser refuses headers (the request line included) over 16 KiB
 * with a bare 431 before the gateway sees the request: a transport limit, not
 * an answer of the gateway's.
 */
const HEADERS_TOO_LARGE = 431

export type Check = (response: FuzzResponse) => string | undefined

/** A 5xx, or a body that is not JSON (undefined: the body parsed, in `json`). */
function parseAnswer (response: FuzzResponse): { problem?: string, json?: unknown } {
  if (response.status >= 500) return { problem: `HTTP ${response.status}: ${response.text.slice(0, 300)}` }
  try {
    return { json: JSON.parse(response.text) }
  } catch {
    return { problem: `HTTP ${response.status} with a body that is not JSON: ${response.text.slice(0, 200)}` }
  }
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function jsonRpcItemProblem (item: unknown): string | undefined {
  if (!isObject(item) || item.jsonrpc !== '2.0' || !('id' in item)) return `not a JSON-RPC 2.0 response: ${JSON.stringify(item).slice(0, 200)}`
  if ('result' in item === 'error' in item) return `neither or both of result and error: ${JSON.stringify(item).slice(0, 200)}`
  if (!('error' in item)) return undefined
  const error = item.error
  if (!isObject(error) || typeof error.message !== 'string' || !Number.isInteger(error.code)) return `a malformed error object: ${JSON.stringify(error).slice(0, 200)}`
  // -32603 means Geth did not answer: it runs throughout a fuzz run, so the gateway itself failed.
  if (!JSON_RPC_CODES.has(error.code as number)) return `undocumented error code ${String(error.code)}: ${error.message.slice(0, 200)}`
  return undefined
}

export const checkJsonRpc: Check = (response) => {
  if (response.status === HEADERS_TOO_LARGE) return undefined
  const { problem, json } = parseAnswer(response)
  if (problem !== undefined) return problem
  return jsonRpcAnswerProblem(json)
}

/** One JSON-RPC response, or a batch of them, already parsed. */
export function jsonRpcAnswerProblem (json: unknown): string | undefined {
  if (!Array.isArray(json)) return jsonRpcItemProblem(json)
  if (json.length === 0) return 'an empty batch answer'
  for (const item of json) {
    const itemProblem = jsonRpcItemProblem(item)
    if (itemProblem !== undefined) return `batch item: ${itemProblem}`
  }
  return undefined
}

/**
 * 2xx: JSON when it says so (Blockscout's liveness probes answer text/plain
 * "OK"); 4xx: `{ message }` (404, 400, 403, coded errors) or Blockscout's
 * 422 `{ errors: [...] }`.
 */
export const checkRest: Check = (response) => {
  if (response.status === HEADERS_TOO_LARGE) return undefined
  if (response.status < 300 && !response.contentType.includes('json')) return undefined
  const { problem, json } = parseAnswer(response)
  if (problem !== undefined) return problem
  if (response.status < 400) return undefined
  if (isObject(json) && (typeof json.message === 'string' || (Array.isArray(json.errors) && json.errors.length > 0))) return undefined
  return `HTTP ${response.status} without a message or errors[]: ${response.text.slice(0, 200)}`
}

/** Every GraphQL answer carries `data` or a non-empty `errors[]` of objects with a message. */
export const checkGraphql: Check = (response) => {
  if (response.status === HEADERS_TOO_LARGE) return undefined
  const { problem, json } = parseAnswer(response)
  if (problem !== undefined) return problem
  if (!isObject(json)) return `not an object: ${response.text.slice(0, 200)}`
  if ('errors' in json) return graphqlErrorsProblem(json.errors)
  if (response.status !== 200 || !('data' in json)) return `HTTP ${response.status} without errors[]: ${response.text.slice(0, 200)}`
  return undefined
}

/**
 * The Etherscan-style envelope `{ status: "0" | "1", message, result }`, or
 * module=proxy's JSON-RPC object (a result, or an error with a documented
 * code), as Etherscan answers it; a request refused before it (4xx) as REST.
 */
export const checkEtherscan: Check = (response) => {
  if (response.status >= 400) return checkRest(response)
  const { problem, json } = parseAnswer(response)
  if (problem !== undefined) return problem
  if (isObject(json) && (json.status === '0' || json.status === '1') && typeof json.message === 'string' && 'result' in json) return undefined
  if (isObject(json) && json.jsonrpc === '2.0' && 'id' in json) {
    if ('result' in json) return undefined
    if (isObject(json.error) && typeof json.error.message === 'string' && JSON_RPC_CODES.has(json.error.code as number)) return undefined
    return `a proxy answer with neither a result nor a documented error: ${response.text.slice(0, 200)}`
  }
  return `not an Etherscan envelope: ${response.text.slice(0, 200)}`
}

/** A non-empty `errors[]` of objects with a message, none of them a server error (`INTERNAL_SERVER_ERROR`: a bug, not the client's mistake). */
export function graphqlErrorsProblem (errors: unknown): string | undefined {
  if (!Array.isArray(errors) || errors.length === 0 || !errors.every((e) => isObject(e) && typeof e.message === 'string')) {
    return `a malformed errors[]: ${JSON.stringify(errors)?.slice(0, 200)}`
  }
  const internal = errors.find((e) => isObject(e.extensions) && e.extensions.code === 'INTERNAL_SERVER_ERROR')
  return internal === undefined ? undefined : `a server error: ${JSON.stringify(internal).slice(0, 200)}`
}
