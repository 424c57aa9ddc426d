// JSON-RPC's own error channel: codes from the JSON-RPC 2.0 spec and the
// Ethereum provider conventions (EIP-1474). docs/json-rpc.md lists them; a test checks.
import { ApiKeyInvalidError, RateLimitedError } from '../errors.ts'

export const JSON_RPC_ERRORS = {
  PARSE_ERROR: { code: -32700, message: 'Parse error' },
  INVALID_REQUEST: { code: -32600, message: 'Invalid request' },
  METHOD_NOT_FOUND: { code: -32601, message: 'Method not found' },
  INVALID_PARAMS: { code: -32602, message: 'Invalid params' },
  INTERNAL_ERROR: { code: -32603, message: 'Internal error' },
  UNKNOWN_ACCOUNT: { code: -32000, message: 'unknown account' },
  LIMIT_EXCEEDED: { code: -32005, message: 'Limit exceeded' },
  UNAUTHORIZED: { code: -32001, message: 'Unauthorized' },
  // EIP-1474's "Method not supported", for a method served to premium API keys only (traces, txpool_status).
  PREMIUM_ONLY: { code: -32004, message: 'Method reserved to premium API keys' },
  // EIP-1474's "Resource unavailable": what the request needs (its API key's check) cannot be had now.
  RESOURCE_UNAVAILABLE: { code: -32002, message: 'Resource unavailable' }
} as const

export type JsonRpcErrorName = keyof typeof JSON_RPC_ERRORS
export type JsonRpcId = string | number | null
export type JsonRpcErrorObject = { code: number, message: string, data?: unknown }
export type JsonRpcResponse =
  | { jsonrpc: '2.0', id: JsonRpcId, result: unknown }
  | { jsonrpc: '2.0', id: JsonRpcId, error: JsonRpcErrorObject }

/** Thrown inside request handling; becomes one error response for that item. */
export class JsonRpcError extends Error {
  override readonly name = 'JsonRpcError'
  readonly code: number
  constructor (kind: JsonRpcErrorName | JsonRpcErrorObject, readonly data?: unknown) {
    const { code, message } = typeof kind === 'string' ? JSON_RPC_ERRORS[kind] : kind
    super(message)
    this.code = code
  }

  toObject (): JsonRpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data }
  }
}

export function errorResponse (id: JsonRpcId, error: JsonRpcError): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: error.toObject() }
}

/** The answer to a request over the rate limit: -32005 for its id, or an array of them, one per item, for a batch. */
export function overLimitAnswer (ids: JsonRpcId | JsonRpcId[]): string {
  return answerEach(ids, new JsonRpcError('LIMIT_EXCEEDED', new RateLimitedError().message))
}

/** The answer to a request whose API key is refused: -32001 for its id, or one per item of a batch; one message whatever the reason. */
export function keyRefusedAnswer (ids: JsonRpcId | JsonRpcId[]): string {
  return answerEach(ids, new JsonRpcError('UNAUTHORIZED', new ApiKeyInvalidError().message))
}

function answerEach (ids: JsonRpcId | JsonRpcId[], error: JsonRpcError): string {
  return JSON.stringify(Array.isArray(ids) ? ids.map((id) => errorResponse(id, error)) : errorResponse(ids, error))
}
