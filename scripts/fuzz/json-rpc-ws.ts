// JSON-RPC over WebSocket (/ws, and the upgrade of / and /rpc): sessions of
// the HTTP endpoint's generated bodies as messages (calls of every allowed
// and denied method, batches, what is not JSON, deep nesting, a message just
// over 1 MiB), subscriptions with hostile kinds and filters, unsubscribes of
// ids never given, over a hundred subscriptions on one socket, binary frames
// and text frames that are not UTF-8.
import fc from 'fast-check'
import { hexOf, hostileJson, hostileString, type Known } from './hostile.ts'
import { filterObject, jsonRpcBodies } from './json-rpc.ts'
import type { FuzzTarget } from './run.ts'
import { jsonRpcAnswerProblem } from './shapes.ts'
import { createSessionTarget, describeSession, isAnswerWithId, OVERSIZED_FRAME, type WsFrame, type WsOutcome, type WsSession } from './websocket.ts'

const SENTINEL_ID = 'fuzz-sentinel'
const SENTINEL = JSON.stringify({ jsonrpc: '2.0', id: SENTINEL_ID, method: 'eth_chainId' })
/** RPC_WS_MAX_SUBSCRIPTIONS_PER_CONNECTION's default is 100: sessions that pass it. */
const MANY_SUBSCRIPTIONS = { min: 95, max: 110 }
/** docs/json-rpc.md#websocket: a client that reads too slowly or is over its budget (1008), a message over 1 MiB (1009); text that is not UTF-8 (1007, the WebSocket protocol's). */
const CLOSE_CODES = new Set([1007, 1008, 1009])

export function createJsonRpcWsTarget (origin: string, known: Known): FuzzTarget<WsSession, WsOutcome> {
  const subscribeParams = fc.oneof(
    fc.constantFrom(['newHeads'], ['newPendingTransactions'], ['newPendingTransactions', true], ['bogus'], [], ['syncing'], ['newHeads', {}], ['logs'], ['logs', null]),
    filterObject(known).map((filter) => ['logs', filter]),
    fc.array(hostileJson(known), { maxLength: 3 })
  )
  const subscribe = fc.tuple(fc.oneof(fc.nat(), fc.string({ maxLength: 8 })), subscribeParams)
    .map(([id, params]) => JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params }))
  const unsubscribe = fc.oneof(hexOf(16), hostileString(known), fc.constant(null))
    .map((id) => JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_unsubscribe', params: [id] }))
  const frame: fc.Arbitrary<WsFrame> = fc.oneof(
    { weight: 8, arbitrary: jsonRpcBodies(known, OVERSIZED_FRAME).map((body) => Buffer.isBuffer(body) ? body.toString() : body) },
    { weight: 3, arbitrary: subscribe },
    { weight: 1, arbitrary: unsubscribe },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 16 }).map((bytes) => ({ text: Buffer.concat([Buffer.from([0xff]), Buffer.from(bytes)]) })) }
  )
  const manySubscriptions = fc.integer(MANY_SUBSCRIPTIONS).map((n) => Array.from({ length: n }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params: ['newHeads'] })))
  const frames = fc.oneof({ weight: 30, arbitrary: fc.array(frame, { minLength: 1, maxLength: 8 }) }, { weight: 1, arbitrary: manySubscriptions })
  const sessions = fc.record({ path: fc.constantFrom('/ws', '/rpc', '/'), frames })
    .map(({ path, frames }) => describeSession({ path, frames, sentinel: SENTINEL, isSentinelAnswer: isAnswerWithId(SENTINEL_ID) }))
  return createSessionTarget('JSON-RPC WebSocket', origin, sessions, checkJsonRpcSession)
}

/** Every message a JSON-RPC answer or an eth_subscription notification; a close only with a documented code. */
export function checkJsonRpcSession (outcome: WsOutcome): string | undefined {
  if (outcome.refusedStatus !== undefined) return `the upgrade was refused: HTTP ${outcome.refusedStatus} ${outcome.messages[0]?.slice(0, 200)}`
  for (const message of outcome.messages) {
    let json: unknown
    try {
      json = JSON.parse(message)
    } catch {
      return `a message that is not JSON: ${message.slice(0, 200)}`
    }
    const notification = json as { method?: unknown, params?: { subscription?: unknown } }
    if (notification.method === 'eth_subscription' && typeof notification.params?.subscription === 'string') continue
    const problem = jsonRpcAnswerProblem(json)
    if (problem !== undefined) return problem
  }
  if (outcome.serverCloseCode !== undefined && !CLOSE_CODES.has(outcome.serverCloseCode)) {
    return `closed by the gateway with ${outcome.serverCloseCode} ${JSON.stringify(outcome.serverCloseReason)}`
  }
  return undefined
}
