// A GraphQL subscriber that stops reading cannot make the gateway hold
// events without end: when a burst of events begins and its subscription still
// has `GRAPHQL_SUBSCRIPTION_MAX_QUEUED` events waiting, it is ended with
// `complete`, while a subscriber that reads gets every event of the same
// bursts, each larger than the bound. The indexer's events are fired by the test (no chain is needed for
// what the subscription answers: the published block rows themselves);
// PostgreSQL, HTTP and the WebSockets are real.
import t from 'tap'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import pino from 'pino'
import WebSocket from 'ws'
import { loadConfig } from '../../../core/config.ts'
import { openDatabase } from '../../../core/db/index.ts'
import type { Hex } from '../../../core/indexer/types.ts'
import { startApiServer } from '../../../scripts/bench/graphql/server.ts'
import { createTestDatabase } from '../../support/database.ts'
import { committedBlock } from '../../support/committed-blocks.ts'

const MAX_QUEUED = 100
const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const config = loadConfig({ ...process.env, GETH_RPC_URL: '', DATA_DIR: '.', GRAPHQL_SUBSCRIPTION_MAX_QUEUED: String(MAX_QUEUED) })
const server = await startApiServer(database, config.graphql)
t.teardown(async () => await server.close())

// 8 KiB of calldata a transaction: enough messages to fill the kernel's socket buffers quickly.
const INPUT: Hex = `0x${'ab'.repeat(8192)}`
const TRANSACTIONS_PER_BLOCK = 60
const blockRows = (n: number) => committedBlock(n, { transactions: TRANSACTIONS_PER_BLOCK, input: INPUT })

type Client = { socket: WebSocket, next: number, completed: boolean }

/** A graphql-transport-ws client subscribed to newTransaction, counting what it hears. */
async function subscribe (): Promise<Client> {
  const socket = new WebSocket(server.url.replace('http', 'ws') + '/api/v2/graphql', 'graphql-transport-ws')
  const client: Client = { socket, next: 0, completed: false }
  await once(socket, 'open')
  socket.send(JSON.stringify({ type: 'connection_init' }))
  const acknowledged = new Promise<void>((resolve) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data))
      if (message.type === 'connection_ack') resolve()
      else if (message.type === 'next') client.next++
      else if (message.type === 'complete') client.completed = true
      else if (message.type === 'error') throw new Error(`subscription refused: ${JSON.stringify(message.payload)}`)
    })
  })
  await acknowledged
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { newTransaction { hash input } }' } }))
  return client
}

async function until (check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!check() && Date.now() < deadline) await sleep(20)
  return check()
}

t.test('a subscriber that stops reading is ended; one that reads hears every event', async (t) => {
  const [stalled, reading] = [await subscribe(), await subscribe()]
  t.teardown(() => { stalled.socket.terminate(); reading.socket.terminate() })
  let number = 1
  const publish = (blocks: number): void => {
    server.app.indexer.events.publish({ type: 'block', blocks: Array.from({ length: blocks }, () => blockRows(number++)), storedHere: true })
  }
  // Subscribing is not acknowledged: publish until both hear, then count afresh.
  t.ok(await until(() => { if (stalled.next === 0 || reading.next === 0) publish(1); return stalled.next > 0 && reading.next > 0 }, 5000), 'both subscribed')
  await sleep(200)
  stalled.next = 0
  reading.next = 0

  // The stalled client's socket stops reading: the kernel's buffers fill, then the gateway's queue.
  ;(stalled.socket as unknown as { _socket: { pause (): void } })._socket.pause()
  const first = number
  const bursts = 60
  for (let i = 0; i < bursts; i++) {
    publish(1) // 60 events at once: a reading subscriber works them off long before the next
    await sleep(150)
  }
  const published = (number - first) * TRANSACTIONS_PER_BLOCK
  t.ok(await until(() => reading.next === published, 20_000), `the reading subscriber heard all ${published} transactions (${reading.next})`)
  t.notOk(reading.completed, 'and its subscription goes on')

  ;(stalled.socket as unknown as { _socket: { resume (): void } })._socket.resume()
  t.ok(await until(() => stalled.completed, 20_000), 'the stalled subscriber\'s subscription was ended with complete')
  t.ok(stalled.next < published / 2, `it got ${stalled.next} of ${published} transactions: the queue stopped growing`)

  // The ended subscriber can subscribe again on the same connection.
  stalled.socket.send(JSON.stringify({ id: '2', type: 'subscribe', payload: { query: 'subscription { newTransaction { hash } }' } }))
  await sleep(200)
  const before = stalled.next
  publish(1)
  t.ok(await until(() => stalled.next === before + TRANSACTIONS_PER_BLOCK, 5000), 'subscribed again, it hears the next block\'s transactions')
})
