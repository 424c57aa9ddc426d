// The Etherscan-style envelope Blockscout's /api answers in: status "1" with
// message "OK" and the result, or status "0" with the error as the message and
// a null result (Blockscout's RPCView; its front end reads a null result as
// "no such thing", the block countdown page redirecting to the block).

export type Envelope = { status: '0' | '1', message: string, result: unknown }

export const ok = (result: unknown): Envelope => ({ status: '1', message: 'OK', result })
export const notOk = (message: string, result: unknown = null): Envelope => ({ status: '0', message, result })
/** A list: an empty one is status "0" with Etherscan's message and an empty result ("No transactions found"). */
export const okList = (rows: unknown[], emptyMessage: string): Envelope => rows.length === 0 ? notOk(emptyMessage, []) : ok(rows)

/** The response schema shared by every action: `result` is the action's own. */
export const envelopeSchema = (result: object) => ({
  type: 'object',
  required: ['status', 'message', 'result'],
  properties: {
    status: { type: 'string', enum: ['0', '1'], description: '1 on success, 0 on an error' },
    message: { type: 'string', description: 'OK, or what went wrong' },
    result
  }
})
