// Etherscan's envelope: status "1" with message "OK" and the result; an error
// is status "0" with message "NOTOK" and the reason as the result
// ("Error! Invalid address format"), as Etherscan documents its errors and as
// hardhat-verify and forge read them (the result, word for word). A list with
// nothing in it is no error: status "0", Etherscan's message for it and an
// empty result ("No transactions found", []).

export type Envelope = { status: '0' | '1', message: string, result: unknown }

export const ok = (result: unknown): Envelope => ({ status: '1', message: 'OK', result })
/** An error: NOTOK, the reason in `result`. */
export const notOk = (reason: string): Envelope => ({ status: '0', message: 'NOTOK', result: reason })
/** Nothing to answer, which is no error: Etherscan's message for it and an empty result. */
export const nothingFound = (message: string, result: [] | null = []): Envelope => ({ status: '0', message, result })
/** A list: an empty one is status "0" with Etherscan's message and an empty result ("No transactions found"). */
export const okList = (rows: unknown[], emptyMessage: string): Envelope => rows.length === 0 ? nothingFound(emptyMessage) : ok(rows)

/** The response schema shared by every action: `result` is the action's own. */
export const envelopeSchema = (result: object) => ({
  type: 'object',
  required: ['status', 'message', 'result'],
  properties: {
    status: { type: 'string', enum: ['0', '1'], description: '1 on success, 0 on an error or when nothing was found' },
    message: { type: 'string', description: 'OK; NOTOK on an error (the reason is the result); or what was not found' },
    result
  }
})

/**
 * The proxy module's answer: the JSON-RPC endpoint's text as it wrote it
 * (a kept answer is text already, with the id written in) and its status.
 */
export type JsonRpcText = { jsonRpc: true, status: number, body: string }

export const jsonRpcText = (status: number, body: string): JsonRpcText => ({ jsonRpc: true, status, body })

/**
 * The proxy module's answer, for the API reference: JSON-RPC 2.0's fields
 * (with the envelope's `result`). They join the envelope's schema as optional
 * properties rather than as a second anyOf branch: a branch costs every answer
 * a validation of its whole body before it is written (a third more time on
 * a 10,000-row list), and the proxy's text is sent as written, unserialized.
 */
export const JSON_RPC_ANSWER_PROPERTIES = {
  jsonrpc: { type: 'string', enum: ['2.0'], description: 'module=proxy only: its answers are JSON-RPC\'s object, {jsonrpc, id, result} or {jsonrpc, id, error}' },
  id: { type: 'integer', description: 'module=proxy only' },
  error: {
    type: 'object',
    description: 'module=proxy only: the JSON-RPC error',
    required: ['code', 'message'],
    properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} }
  }
}
