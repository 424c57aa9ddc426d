// GraphQL subscriptions run on every event they hear, so their number and cost
// are bounded: at most GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION live on one
// connection and GRAPHQL_MAX_SUBSCRIPTIONS on the instance, each costing at
// most GRAPHQL_SUBSCRIPTION_MAX_COMPLEXITY. A refusal is an `error` message for
// that subscription's id, on graphql-transport-ws and on the legacy graphql-ws
// alike, and the connection goes on serving. Subscriptions may use variables
// (they were refused: the cost was counted without them). The indexer's events
// are fired by the test; PostgreSQL, HTTP and the WebSockets are real.
import t from 'tap'
import pino from 'pino'
import { loadConfig } from '../../../core/config.ts'
import { openDatabase } from '../../../core/db/index.ts'
import type { Hex } from '../../../core/indexer/types.ts'
import { startApiServer, type ApiServer } from '../../../scripts/bench/graphql/server.ts'
import { createTestDatabase } from '../../support/database.ts'
import { committedBlock, SENDER } from '../../support/committed-blocks.ts'
import { captureStatements } from '../../support/statements.ts'
import { storeBlocks } from '../../../core/indexer/store.ts'
import { openSubscriptionSocket, type SubscriptionSocket, type WsMessage } from '../../support/graphql.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())

const PER_CONNECTION = 3
const TOTAL = 5
const MAX_COMPLEXITY = 20

async function serve (t: Tap, env: Record<string, string> = {}): Promise<ApiServer> {
  const config = loadConfig({
    ...process.env,
    GETH_RPC_URL: '',
    DATA_DIR: '.',
    GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION: String(PER_CONNECTION),
    GRAPHQL_MAX_SUBSCRIPTIONS: String(TOTAL),
    GRAPHQL_SUBSCRIPTION_MAX_COMPLEXITY: String(MAX_COMPLEXITY),
    ...env
  })
  const server = await startApiServer(database, config.graphql)
  t.teardown(async () => await server.close())
  return server
}
type Tap = { teardown (fn: () => unknown): void }

type Protocol = 'graphql-transport-ws' | 'graphql-ws'
const PROTOCOLS: Protocol[] = ['graphql-transport-ws', 'graphql-ws']
/** Each protocol's names for a subscription's start, its events, and the client's stop. */
const TYPES = {
  'graphql-transport-ws': { start: 'subscribe', data: 'next', stop: 'complete' },
  'graphql-ws': { start: 'start', data: 'data', stop: 'stop' }
} as const

type Client = SubscriptionSocket & { protocol: Protocol, subscribe (id: string, query: string, variables?: object): void, stop (id: string): void }

async function connect (t: Tap, server: ApiServer, protocol: Protocol): Promise<Client> {
  const socket = await openSubscriptionSocket(`${server.url.replace('http', 'ws')}/api/v2/graphql`, protocol)
  t.teardown(() => socket.socket.terminate())
  socket.send({ type: 'connection_init' })
  const ack = await socket.next()
  if (ack.type !== 'connection_ack') throw new Error(`no connection_ack: ${JSON.stringify(ack)}`)
  return {
    ...socket,
    protocol,
    subscribe: (id, query, variables) => socket.send({ id, type: TYPES[protocol].start, payload: { query, variables } }),
    stop: (id) => socket.send({ id, type: TYPES[protocol].stop })
  }
}

/** The messages the client gets within `ms`, keep-alives left out. */
async function received (client: Client, ms = 300): Promise<WsMessage[]> {
  const messages: WsMessage[] = []
  const deadline = Date.now() + ms
  for (;;) {
    const left = deadline - Date.now()
    if (left <= 0) return messages
    try {
      const message = await client.next(left)
      if (message.type !== 'ka') messages.push(message)
    } catch {
      return messages
    }
  }
}

/** The ids that heard an event in `messages`. */
const heard = (client: Client, messages: WsMessage[]): string[] =>
  messages.filter((m) => m.type === TYPES[client.protocol].data).map((m) => m.id!).sort()

let blockNumber = 1
const publish = (server: ApiServer, tokens: Hex[] = []): void => {
  server.app.indexer.events.publish({ type: 'block', blocks: [committedBlock(blockNumber++, { tokens })], storedHere: true })
}

const NEW_BLOCK = 'subscription { newBlock { number } }'

for (const protocol of PROTOCOLS) {
  t.test(`${protocol}: a connection holds at most GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION subscriptions; a refusal is an error for its id`, async (t) => {
    const server = await serve(t)
    const client = await connect(t, server, protocol)
    for (const id of ['a', 'b', 'c', 'd']) client.subscribe(id, NEW_BLOCK)
    const refused = await client.next()
    t.same(refused, { type: 'error', id: 'd', payload: [{ message: `Too many subscriptions on this connection: at most ${PER_CONNECTION}`, extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }] })
    t.same(await received(client), [], 'nothing else (subscribing is not acknowledged: this waits for it)')
    publish(server)
    t.same(heard(client, await received(client)), ['a', 'b', 'c'], 'the three accepted hear the block; the refused one does not')

    // The connection goes on: stopping one makes room for another.
    client.stop('a')
    client.subscribe('e', NEW_BLOCK)
    const afterStop = await received(client)
    t.notOk(afterStop.some((m) => m.type === 'error'), `no refusal once one is stopped: ${JSON.stringify(afterStop)}`)
    publish(server)
    t.same(heard(client, await received(client)), ['b', 'c', 'e'])
    client.subscribe('f', NEW_BLOCK)
    t.match(await client.next(), { type: 'error', id: 'f', payload: [{ extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }] }, 'full again')
  })
}

t.test('the instance holds at most GRAPHQL_MAX_SUBSCRIPTIONS, all connections together; a closed connection frees its share', async (t) => {
  const server = await serve(t)
  const first = await connect(t, server, 'graphql-transport-ws')
  const second = await connect(t, server, 'graphql-ws')
  for (const id of ['1', '2', '3']) first.subscribe(id, NEW_BLOCK)
  for (const id of ['1', '2', '3']) second.subscribe(id, NEW_BLOCK)
  t.same(await second.next(), { type: 'error', id: '3', payload: [{ message: `The server has too many subscriptions (at most ${TOTAL}); try again later`, extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }] })
  const third = await connect(t, server, 'graphql-transport-ws')
  third.subscribe('x', NEW_BLOCK)
  t.match(await third.next(), { type: 'error', id: 'x', payload: [{ extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }] }, 'a new connection is refused too')
  t.same(await received(first), [])

  first.socket.close()
  await first.closed
  await received(third, 100) // the server hears the close
  third.subscribe('y', NEW_BLOCK)
  t.same(await received(third), [], 'once a connection closes, its subscriptions no longer count')
  publish(server)
  t.same(heard(third, await received(third)), ['y'])
  t.same(heard(second, await received(second)), ['1', '2'])
})

const TOKEN: Hex = `0x${'44'.repeat(20)}`
const TOKEN_TRANSFERS = 'subscription ($hash: AddressHash!) { tokenTransfers(tokenContractAddressHash: $hash) { amount tokenContractAddressHash } }'
/** Costs 1 + 1 + 1 + first x 3 (Blockscout's count): 9 for 2, 303 for 100. */
const PAGED = 'subscription ($n: Int) { newTransaction { hash fromAddress { transactions(first: $n) { edges { node { hash } } } } } }'

for (const protocol of PROTOCOLS) {
  t.test(`${protocol}: subscriptions take variables, and their cost (counted with them) is held to GRAPHQL_SUBSCRIPTION_MAX_COMPLEXITY`, async (t) => {
    const server = await serve(t)
    const client = await connect(t, server, protocol)
    client.subscribe('transfers', TOKEN_TRANSFERS, { hash: TOKEN })
    client.subscribe('cheap', PAGED, { n: 2 })
    client.subscribe('costly', PAGED, { n: 100 })
    t.same(await client.next(), { type: 'error', id: 'costly', payload: [{ message: `Subscription is too complex: complexity is 303 and maximum is ${MAX_COMPLEXITY}`, extensions: { code: 'QUERY_TOO_COMPLEX' } }] })
    t.same(await received(client), [])
    publish(server, [TOKEN])
    const messages = await received(client)
    t.same(heard(client, messages), ['cheap', 'transfers'], `the ones within the limit hear the block: ${JSON.stringify(messages)}`)
    t.same(messages.find((m) => m.id === 'transfers')?.payload, { data: { tokenTransfers: [{ amount: String(blockNumber - 1), tokenContractAddressHash: TOKEN }] } })
    t.same(messages.find((m) => m.id === 'cheap')?.payload.data.newTransaction.fromAddress, null, 'an address the database does not hold')

    // Refusals hold no place (more of them than a connection may hold, one after another), and a refused id is free again.
    for (let i = 0; i < 3 * PER_CONNECTION; i++) {
      client.subscribe('costly', PAGED, { n: 100 })
      t.match(await client.next(), { type: 'error', id: 'costly', payload: [{ extensions: { code: 'QUERY_TOO_COMPLEX' } }] }, `refused for its cost, time ${i + 1}`)
    }
    client.subscribe('costly', NEW_BLOCK)
    t.same(await received(client), [], 'the id is taken again once refused')
    publish(server)
    t.same(heard(client, await received(client)), ['cheap', 'costly'])
  })
}

t.test('subscriptions without an id, with the id of a live one, invalid, or with bad variables', async (t) => {
  const server = await serve(t)
  const legacy = await connect(t, server, 'graphql-ws')
  legacy.send({ type: 'start', payload: { query: NEW_BLOCK } })
  t.match(await legacy.next(), { type: 'error', payload: [{ message: 'A subscription needs an id: a non-empty string', extensions: { code: 'BAD_REQUEST' } }] })
  legacy.subscribe('1', 'subscription { new_block { no_such_field } }')
  t.match(await legacy.next(), { type: 'error', id: '1', payload: [{ message: 'Cannot query field "no_such_field" on type "Block".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] },
    'an invalid subscription is refused in the client\'s spelling')
  legacy.subscribe('2', TOKEN_TRANSFERS, { hash: '0x12' })
  t.match(await legacy.next(), { type: 'error', id: '2', payload: [{ message: /^Variable "\$hash" got invalid value "0x12"; Invalid AddressHash/, extensions: { code: 'BAD_USER_INPUT' } }] })
  legacy.subscribe('3', TOKEN_TRANSFERS)
  t.match(await legacy.next(), { type: 'error', id: '3', payload: [{ message: 'Variable "$hash" of required type "AddressHash!" was not provided.', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] },
    'a variable missing or malformed is refused with a code, as over HTTP')
  legacy.subscribe('1', NEW_BLOCK)
  t.same(await received(legacy), [])
  publish(server)
  t.same(heard(legacy, await received(legacy)), ['1'], 'and its id serves again')

  const client = await connect(t, server, 'graphql-transport-ws')
  client.subscribe('1', NEW_BLOCK)
  client.subscribe('1', NEW_BLOCK)
  t.equal(await client.closed, 4409, 'graphql-transport-ws: a second subscribe with a live id closes the connection with 4409')
})

t.test('the subscribers of one event share its database reads', async (t) => {
  const server = await serve(t, { GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION: '20', GRAPHQL_MAX_SUBSCRIPTIONS: '20', GRAPHQL_SUBSCRIPTION_MAX_COMPLEXITY: '100' })
  // The sender's earlier transactions, stored (here after every test that wants the sender unknown).
  await storeBlocks(database.knex, [1, 2].map((n) => ({ ...committedBlock(n), logs: [], internalTransactions: [], state: { coinBalances: [{ address: SENDER, block_number: n, value: '1' }], contracts: [] }, tokens: [] })))
  const client = await connect(t, server, 'graphql-transport-ws')
  const SUBSCRIBERS = 20
  const query = 'subscription { newTransaction { hash block { number } fromAddress { hash transactions(first: 2) { edges { node { blockNumber } } } } } }'
  for (let i = 0; i < SUBSCRIBERS; i++) client.subscribe(String(i), query)
  t.same(await received(client), [])
  const { result: messages, texts } = await captureStatements(async () => {
    server.app.indexer.events.publish({ type: 'block', blocks: [committedBlock(2)], storedHere: true }) // as if block 2 had just been committed
    return await received(client, 1000)
  })
  t.equal(messages.length, SUBSCRIBERS, 'every subscriber hears the transaction')
  t.ok(messages.every((m) => JSON.stringify(m.payload) === JSON.stringify(messages[0]!.payload)), 'with the same answer')
  t.same(messages[0]!.payload.data.newTransaction.fromAddress, { hash: SENDER, transactions: { edges: [{ node: { blockNumber: 2 } }, { node: { blockNumber: 1 } }] } })
  t.equal(texts.length, 3, `one statement for the block, one for the sender, one for its page, not one each per subscriber: ${texts.length}`)
})
