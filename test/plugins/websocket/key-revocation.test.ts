// A WebSocket opened with an API key is closed when the key stops working, on
// whichever instance holds it: two gateway instances on one database, sockets
// of each kind (JSON-RPC /ws, GraphQL subscriptions, the Phoenix socket) opened
// with a key on the second, the key revoked (or its rotation's grace over) on
// the first. Sockets of other keys, and public ones, stay open.
import t, { type Test } from 'tap'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'
import { build } from '../../helper.ts'
import { buildSecondInstance } from '../../support/second-instance.ts'
import { openSubscriptionSocket } from '../../support/graphql.ts'
import { createApiKey, revokeApiKeys, rotateApiKey } from '../../../core/api-keys/store.ts'
import { KEY_REVOKED_CLOSE_CODE, KEY_REVOKED_CLOSE_REASON } from '../../../plugins/websocket/key-revocation.ts'

const first = await build(t)
const a = first.app
const b = await buildSecondInstance(t, first)
await b.listen({ host: '127.0.0.1', port: 0 })
const onB = `ws://127.0.0.1:${(b.server.address() as { port: number }).port}`

type Kind = 'json-rpc' | 'graphql' | 'phoenix'
const KINDS: Kind[] = ['json-rpc', 'graphql', 'phoenix']
type Opened = { kind: Kind, socket: WebSocket, closed: Promise<{ code: number, reason: string, atMs: number }> }

/** A socket of this kind on b, opened (and answering) with `key` in the query, or public without one. */
async function open (t: Test, kind: Kind, key?: string): Promise<Opened> {
  const query = key === undefined ? '' : `apikey=${key}`
  let socket: WebSocket
  let answer: Promise<unknown>
  if (kind === 'graphql') {
    const graphql = await openSubscriptionSocket(`${onB}/api/v2/graphql?${query}`)
    socket = graphql.socket
    graphql.send({ type: 'connection_init' })
    t.match(await graphql.next(), { type: 'connection_ack' }, 'graphql: acknowledged')
  } else {
    socket = new WebSocket(kind === 'json-rpc' ? `${onB}/ws?${query}` : `${onB}/socket/v2/websocket?vsn=2.0.0&${query}`)
    await once(socket, 'open')
    answer = once(socket, 'message')
    socket.send(kind === 'json-rpc' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }) : '[null,"1","phoenix","heartbeat",{}]')
    const [data] = await answer as [Buffer]
    t.match(JSON.parse(String(data)), kind === 'json-rpc' ? { id: 1, result: '0xc1cbc' } : [null, '1', 'phoenix', 'phx_reply', { status: 'ok' }], `${kind}: answered`)
  }
  t.teardown(() => socket.terminate())
  const closed = new Promise<{ code: number, reason: string, atMs: number }>((resolve) => {
    socket.once('close', (code, reason) => resolve({ code, reason: String(reason), atMs: Date.now() }))
  })
  return { kind, socket, closed }
}

async function closedWithin (opened: Opened, ms: number): Promise<{ code: number, reason: string, atMs: number } | undefined> {
  return await Promise.race([opened.closed, sleep(ms).then(() => undefined)])
}

t.test('revoked on one instance, a key\'s sockets of every kind on another are closed within a second', async (t) => {
  const { key, listing } = await createApiKey(a.db.knex, { label: 'socket holder', tier: 'premium' })
  const { key: otherKey } = await createApiKey(a.db.knex, { label: 'bystander', tier: 'premium' })
  await sleep(200) // the creations' own notices heard
  const revoked = await Promise.all(KINDS.map(async (kind) => await open(t, kind, key)))
  const others = await Promise.all(KINDS.map(async (kind) => await open(t, kind, otherKey)))
  const publics = await Promise.all(KINDS.map(async (kind) => await open(t, kind)))

  const start = Date.now()
  await revokeApiKeys(a.db.knex, listing.id)
  for (const opened of revoked) {
    const closed = await closedWithin(opened, 3000)
    t.ok(closed !== undefined, `${opened.kind}: closed`)
    if (closed === undefined) continue
    t.equal(closed.code, KEY_REVOKED_CLOSE_CODE, `${opened.kind}: policy violation`)
    t.equal(closed.reason, KEY_REVOKED_CLOSE_REASON, `${opened.kind}: the reason says why`)
    // PostgreSQL delivers the notice in milliseconds; the margin is for a busy machine.
    t.ok(closed.atMs - start < 1500, `${opened.kind}: within about a second (${closed.atMs - start} ms)`)
  }
  for (const opened of [...others, ...publics]) t.equal(opened.socket.readyState, WebSocket.OPEN, `${opened.kind}: another key's or a public socket stays open`)
})

t.test('a rotated key\'s sockets are closed when its grace is over, not before', async (t) => {
  const created = await createApiKey(a.db.knex, { label: 'rotated holder', tier: 'premium' })
  await sleep(200)
  const sockets = await Promise.all(KINDS.map(async (kind) => await open(t, kind, created.key)))
  await rotateApiKey(a.db.knex, created.listing.id, 2)
  const start = Date.now()
  await sleep(1000)
  for (const opened of sockets) t.equal(opened.socket.readyState, WebSocket.OPEN, `${opened.kind}: open within the grace`)
  for (const opened of sockets) {
    const closed = await closedWithin(opened, 4000)
    t.equal(closed?.code, KEY_REVOKED_CLOSE_CODE, `${opened.kind}: closed once the grace is over`)
    if (closed !== undefined) t.ok(closed.atMs - start > 1500 && closed.atMs - start < 3500, `${opened.kind}: at the grace's end (${closed.atMs - start} ms of 2000)`)
  }
})
