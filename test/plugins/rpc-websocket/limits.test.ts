// The JSON-RPC WebSocket's limits: each message (each batch item) is charged
// to the client's rate limit and answered -32005 past it, the connection kept;
// subscriptions per connection and connections per instance are capped; a
// client that stops reading is disconnected with 1008 rather than buffered
// without end; a message over the shared 1 MiB limit closes with 1009.
import t from 'tap'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'
import { build } from '../../helper.ts'
import { connectWsRpc, wsUrlOf } from '../../support/ws-rpc.ts'
import { createApiKey } from '../../../core/api-keys/store.ts'

const MAX_CONNECTIONS = 4
const MAX_QUEUED_BYTES = 65536
const { app, url } = await build(t, {
  RATE_LIMIT_ENABLED: 'true',
  RATE_LIMIT_PUBLIC_PER_MIN: '100000',
  RPC_WS_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
  RPC_WS_MAX_SUBSCRIPTIONS_PER_CONNECTION: '2',
  RPC_WS_MAX_QUEUED_BYTES: String(MAX_QUEUED_BYTES)
})
const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params })

async function until (check: () => boolean, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!check() && Date.now() < deadline) await sleep(20)
  return check()
}

t.test('past the rate limit each message (each batch item) answers -32005 with its id; the connection stays', async (t) => {
  // The upgrade is one request, then three messages.
  const { key } = await createApiKey(app.db.knex, { label: 'ws-limit', tier: 'premium', limitPerMin: 4 })
  const client = await connectWsRpc(t, wsUrlOf(url, `/rpc/${key}`))
  for (let i = 1; i <= 3; i++) t.equal((await client.call('eth_chainId', [], i)).result, '0xc1cbc', `message ${i}`)
  t.same(await client.call('eth_chainId', [], 'over'), { jsonrpc: '2.0', id: 'over', error: { code: -32005, message: 'Limit exceeded', data: 'Too many requests' } })
  const batch = await client.send([call('eth_chainId', [], 7), call('eth_blockNumber', [], 8)])
  t.same(batch.map((a: any) => [a.id, a.error.code]), [[7, -32005], [8, -32005]])
  t.equal(client.socket.readyState, WebSocket.OPEN)
})

t.test('a batch costs its items: a budget of 4 takes the upgrade and a batch of 3, not a 4th message', async (t) => {
  const { key } = await createApiKey(app.db.knex, { label: 'ws-batch', tier: 'premium', limitPerMin: 4 })
  const client = await connectWsRpc(t, wsUrlOf(url), { headers: { 'x-api-key': key } })
  const batch = await client.send([call('eth_chainId', [], 1), call('eth_chainId', [], 2), call('eth_chainId', [], 3)])
  t.same(batch.map((a: any) => a.result), ['0xc1cbc', '0xc1cbc', '0xc1cbc'])
  t.equal((await client.call('eth_chainId', [], 4)).error.code, -32005)
})

t.test('subscriptions past RPC_WS_MAX_SUBSCRIPTIONS_PER_CONNECTION answer -32005', async (t) => {
  const client = await connectWsRpc(t, wsUrlOf(url))
  t.match((await client.call('eth_subscribe', ['newHeads'])).result, /^0x/)
  const second = (await client.call('eth_subscribe', ['newPendingTransactions'])).result
  const refused = await client.call('eth_subscribe', ['logs', {}])
  t.equal(refused.error.code, -32005)
  t.match(refused.error.data, /at most 2 subscriptions/)
  t.equal((await client.call('eth_unsubscribe', [second])).result, true)
  t.match((await client.call('eth_subscribe', ['logs', {}])).result, /^0x/, 'room again after an unsubscribe')
})

t.test('a client that stops reading is disconnected with 1008', async (t) => {
  const socket = new WebSocket(wsUrlOf(url))
  t.teardown(() => socket.terminate())
  await once(socket, 'open')
  const connections = app.rpcWebsocket.connections()
  const raw = (socket as unknown as { _socket: { pause (): void, resume (): void } })._socket
  raw.pause()
  // Each answer is 2 MiB of hex: code that returns 1 MiB of memory, run by eth_call with a state override.
  const big = (id: number) => JSON.stringify(call('eth_call', [{ to: '0x' + '11'.repeat(20), gas: '0x2faf080' }, 'latest', { ['0x' + '11'.repeat(20)]: { code: '0x621000006000f3' } }], id))
  let id = 0
  const cut = await until(() => {
    if (socket.readyState === WebSocket.OPEN && id < 200) socket.send(big(++id))
    return app.rpcWebsocket.connections() < connections
  }, 120_000)
  t.ok(cut, `the gateway let go of the client after ${id} requests`)
  const closed = once(socket, 'close') as Promise<[number, Buffer]>
  raw.resume()
  const [code, reason] = await closed
  t.equal(code, 1008)
  t.match(String(reason), /reading too slowly/)
})

t.test('a message over 1 MiB closes the socket with 1009', async (t) => {
  const client = await connectWsRpc(t, wsUrlOf(url))
  const closed = once(client.socket, 'close') as Promise<[number, Buffer]>
  client.socket.send(JSON.stringify(call('eth_call', [{ data: '0x' + '00'.repeat(600_000) }])))
  t.equal((await closed)[0], 1009)
})

t.test('connections past RPC_WS_MAX_CONNECTIONS are refused with 503', async (t) => {
  t.ok(await until(() => app.rpcWebsocket.connections() === 0), 'earlier tests\' connections are gone')
  const clients = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, async () => await connectWsRpc(t, wsUrlOf(url))))
  const refused = new WebSocket(wsUrlOf(url))
  refused.on('error', () => {})
  const [, response] = await once(refused, 'unexpected-response') as [unknown, { statusCode: number }]
  t.equal(response.statusCode, 503)
  refused.terminate()
  clients[0]!.socket.close()
  t.ok(await until(() => app.rpcWebsocket.connections() < MAX_CONNECTIONS))
  const again = await connectWsRpc(t, wsUrlOf(url))
  t.equal((await again.call('eth_chainId')).result, '0xc1cbc')
})
