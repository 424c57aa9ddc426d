// Each JSON-RPC call's outcome for the metrics (gateway_jsonrpc_responses_total):
// `ok`, or its error's code. Codes are labels only within the ranges JSON-RPC
// and Geth use, so an upstream node inventing codes cannot grow the series
// without bound; any other code is `other`.
import type { JsonRpcId, JsonRpcResponse } from './errors.ts'

export const OK = 'ok'
export const OTHER_CODE = 'other'

/** JSON-RPC 2.0's reserved range (-32768 to -32000, Geth's own codes among them) and Geth's execution reverted (3). */
function isKnownCode (code: unknown): code is number {
  return Number.isInteger(code) && (((code as number) >= -32768 && (code as number) <= -32000) || code === 3)
}

export function outcomeLabel (code: unknown): string {
  return isKnownCode(code) ? String(code) : OTHER_CODE
}

/** An answer as the handler holds it: a kept answer's text is always a result; undefined (a notification) is ok. */
export function outcomeOf (answer: string | JsonRpcResponse | undefined): string {
  if (answer === undefined || typeof answer === 'string' || !('error' in answer)) return OK
  return outcomeLabel(answer.error.code)
}

/**
 * The node's answer to one call, forwarded untouched. Geth writes the id
 * right after the version and the result (or the error) next: read from the
 * start without parsing a large result; anything else is parsed.
 */
export function outcomeOfBody (id: JsonRpcId | undefined, body: string): string {
  if (id === undefined || body === '') return OK
  const prefix = '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ','
  if (body.startsWith(prefix) && body.startsWith('"result"', prefix.length)) return OK
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown } } | null
    return parsed?.error === undefined ? OK : outcomeLabel(parsed.error.code)
  } catch {
    return OTHER_CODE
  }
}
