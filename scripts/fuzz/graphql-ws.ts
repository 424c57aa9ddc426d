// GraphQL subscriptions over WebSocket (/api/v2/graphql, graphql-transport-ws
// and the legacy graphql-ws): sessions of protocol messages in any order
// (subscribing before connection_init, twice with one id, stopping ids never
// started), unknown and missing types, payloads of the wrong type, messages
// that are not objects or not JSON, binary frames, text that is not UTF-8, a
// frame just over 1 MiB; subscriptions built from the served schema with
// hostile arguments, deep and cyclic selections, alias bombs, queries and
// mutations sent as subscriptions, invalid syntax, hostile variables; and
// sessions that start more subscriptions than a connection may hold.
import fc from 'fast-check'
import type { GraphQLSchema } from 'graphql'
import { GRAPHQL_PATH, aliasBomb, schemaQuery } from './graphql.ts'
import { hostileJson, hostileString, type Known } from './hostile.ts'
import type { FuzzTarget } from './run.ts'
import { graphqlErrorsProblem } from './shapes.ts'
import { createSessionTarget, describeSession, isAnswerWithId, OVERSIZED_FRAME, type WsFrame, type WsOutcome, type WsSession } from './websocket.ts'

const SENTINEL_ID = 'fuzz-sentinel'
/** A type neither protocol has: mercurius answers it with an `error` for its id, after every message before it. */
const SENTINEL = JSON.stringify({ type: SENTINEL_ID, id: SENTINEL_ID })
/** GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION's default is 20: sessions that pass it. */
const MANY_SUBSCRIPTIONS = { min: 18, max: 30 }
const SERVER_TYPES = new Set(['connection_ack', 'connection_error', 'next', 'data', 'error', 'complete', 'ping', 'pong', 'ka'])
/**
 * Closes the gateway may start (docs/graphql.md#subscriptions): 1002 a
 * subprotocol it does not speak, 1005 (no code) after connection_terminate or
 * a subscription before connection_init, 1007 text that is not UTF-8, 1008 a
 * client over its budget, 1009 a message over 1 MiB, 4409 a second
 * subscription with the id of a live one.
 */
const CLOSE_CODES = new Set([1002, 1005, 1007, 1008, 1009, 4409])

export function createGraphqlWsTarget (origin: string, known: Known, schema: GraphQLSchema): FuzzTarget<WsSession, WsOutcome> {
  const subscription = schemaQuery(schema, known, 'subscription')
  const document = fc.oneof(
    { weight: 8, arbitrary: subscription },
    { weight: 1, arbitrary: fc.tuple(subscription, fc.integer({ min: 2, max: 2000 })).map(([q, n]) => 'subscription ' + aliasBomb(q.replace(/^subscription /, ''), n)) },
    { weight: 1, arbitrary: fc.integer({ min: 5, max: 3000 }).map((n) => `subscription { newTransaction { ${'block { transactions { '.repeat(n)}hash${' } }'.repeat(n)} } }`) },
    { weight: 1, arbitrary: schemaQuery(schema, known) },
    { weight: 1, arbitrary: fc.constantFrom('mutation { x }', '{ __typename }', 'subscription { __typename }', 'subscription { newBlock { hash } } subscription B { newBlock { number } }', 'subscription', '{', '', 'subscription { newBlock }', 'subscription { tokenTransfers { amount } }') },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) }
  )
  const id = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('1', '2', '3') }, { weight: 2, arbitrary: fc.string({ maxLength: 8 }) }, { weight: 1, arbitrary: hostileJson(known) })
  const payload = fc.record({
    query: fc.oneof({ weight: 12, arbitrary: document }, { weight: 1, arbitrary: hostileJson(known) }),
    variables: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) }),
    operationName: fc.option(fc.string({ maxLength: 8 }), { nil: undefined })
  }, { requiredKeys: [] })
  const start = fc.tuple(fc.constantFrom('subscribe', 'start'), id, fc.oneof({ weight: 12, arbitrary: payload }, { weight: 1, arbitrary: hostileJson(known) }))
    .map(([type, id, payload]) => JSON.stringify({ type, id, payload }))
  const init = fc.oneof(fc.constant({ type: 'connection_init' }), hostileJson(known).map((payload) => ({ type: 'connection_init', payload })))
    .map((message) => JSON.stringify(message))
  const other = fc.oneof(
    fc.tuple(fc.constantFrom('complete', 'stop', 'ping', 'pong', 'ka', 'connection_terminate', 'next', 'error', 'connection_ack'), id).map(([type, id]) => JSON.stringify({ type, id })),
    fc.tuple(fc.oneof(hostileString(known), fc.string({ maxLength: 12 })), id).map(([type, id]) => JSON.stringify({ type, id })),
    hostileJson(known).map((value) => JSON.stringify(value) ?? 'undefined'),
    fc.constantFrom('null', '42', '[]', '"text"', '{}', '{"type":null}', '{"type":"subscribe"}', '{"type":"subscribe","id":"1","payload":null}', '{"type":"connection_init"', 'not json')
  )
  const frame: fc.Arbitrary<WsFrame> = fc.oneof(
    { weight: 6, arbitrary: start },
    { weight: 1, arbitrary: init },
    { weight: 4, arbitrary: other },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 16 }).map((bytes) => ({ text: Buffer.concat([Buffer.from([0xff]), Buffer.from(bytes)]) })) }
  )
  const manyStarts = fc.tuple(fc.integer(MANY_SUBSCRIPTIONS), subscription)
    .map(([n, query]) => Array.from({ length: n }, (_, i) => JSON.stringify({ type: 'subscribe', id: `s${i}`, payload: { query } })))
  const frames: fc.Arbitrary<WsFrame[]> = fc.oneof({ weight: 30, arbitrary: fc.array(frame, { minLength: 1, maxLength: 8 }) }, { weight: 1, arbitrary: manyStarts }, { weight: 1, arbitrary: fc.constant<WsFrame[]>([OVERSIZED_FRAME]) })
  const protocol = fc.oneof({ weight: 12, arbitrary: fc.constant('graphql-transport-ws') }, { weight: 6, arbitrary: fc.constant('graphql-ws') }, { weight: 1, arbitrary: fc.constantFrom(undefined, 'graphql-bogus') })
  const sessions = fc.record({ protocol, initFirst: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), frames })
    .map(({ protocol, initFirst, frames }) => describeSession({
      path: GRAPHQL_PATH,
      ...(protocol === undefined ? {} : { protocol }),
      frames: initFirst ? [JSON.stringify({ type: 'connection_init' }), ...frames] : frames,
      sentinel: SENTINEL,
      isSentinelAnswer: isAnswerWithId(SENTINEL_ID)
    }))
  return createSessionTarget('GraphQL WebSocket', origin, sessions, checkGraphqlSession)
}

/** Every message one of the protocols' server messages, its errors well-formed and none a server error; a close only with a documented code. */
export function checkGraphqlSession (outcome: WsOutcome): string | undefined {
  if (outcome.refusedStatus !== undefined) return `the upgrade was refused: HTTP ${outcome.refusedStatus} ${outcome.messages[0]?.slice(0, 200)}`
  for (const text of outcome.messages) {
    const problem = messageProblem(text)
    if (problem !== undefined) return problem
  }
  if (outcome.serverCloseCode !== undefined && !CLOSE_CODES.has(outcome.serverCloseCode)) {
    return `closed by the gateway with ${outcome.serverCloseCode} ${JSON.stringify(outcome.serverCloseReason)}`
  }
  return undefined
}

function messageProblem (text: string): string | undefined {
  let message: { type?: unknown, payload?: any }
  try {
    message = JSON.parse(text)
  } catch {
    return `a message that is not JSON: ${text.slice(0, 200)}`
  }
  if (typeof message !== 'object' || message === null || !SERVER_TYPES.has(message.type as string)) return `not a protocol message: ${text.slice(0, 200)}`
  if (message.type === 'error') return graphqlErrorsProblem(Array.isArray(message.payload) ? message.payload : [message.payload])
  if (message.type === 'connection_error' && typeof message.payload?.message !== 'string') return `a connection_error without a message: ${text.slice(0, 200)}`
  if ((message.type === 'next' || message.type === 'data') && message.payload?.errors !== undefined) return graphqlErrorsProblem(message.payload.errors)
  if ((message.type === 'next' || message.type === 'data') && typeof message.payload?.data !== 'object') return `a result without data or errors: ${text.slice(0, 200)}`
  return undefined
}
