// JSON-RPC over WebSocket answers as the HTTP endpoint does (one handler):
// the same allow-list, errors and batch rules, on /ws and on the upgrade of
// /, /rpc and /rpc/<key>; a client mistake never closes the socket.
import t from 'tap'
import { once } from 'node:events'
import WebSocket from 'ws'
import { build, postRpc } from '../../helper.ts'
import { connectWsRpc, wsUrlOf } from '../../support/ws-rpc.ts'
import { createApiKey } from '../../../core/api-keys/store.ts'

const { app, url } = await build(t, { RPC_MAX_BATCH: '5' })
const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params })

t.test('a call on /ws, /, /rpc and /rpc/<key> answers as over HTTP', async (t) => {
  const { key } = await createApiKey(app.db.knex, { label: 'ws', tier: 'premium' })
  for (const path of ['/ws', '/', '/rpc', `/rpc/${key}`]) {
    const client = await connectWsRpc(t, wsUrlOf(url, path))
    t.same(await client.call('eth_chainId', [], 7), { jsonrpc: '2.0', id: 7, result: '0xc1cbc' }, path)
    const block = await client.call('eth_getBlockByNumber', ['0x0', false], 'a')
    t.equal(block.id, 'a')
    t.equal(block.result.number, '0x0', path)
    client.socket.close()
  }
})

t.test('a bad key refuses the upgrade with 401; a plain GET finds nothing (404)', async (t) => {
  const socket = new WebSocket(wsUrlOf(url, '/rpc/not-a-key'))
  socket.on('error', () => {})
  const [, response] = await once(socket, 'unexpected-response') as [unknown, { statusCode: number }]
  t.equal(response.statusCode, 401)
  socket.terminate()
  const plain = await fetch(url + '/ws')
  t.equal(plain.status, 404)
  t.equal((await plain.json()).code, 'GW_ERR_ROUTE_NOT_FOUND')
})

t.test('a batch answers each item in order, its notifications left out', async (t) => {
  const client = await connectWsRpc(t, wsUrlOf(url))
  const answers = await client.send([call('eth_chainId', [], 1), { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] }, call('net_version', [], 2), call('nope', [], 3)])
  t.same(answers.map((a: any) => a.id), [1, 2, 3])
  t.equal(answers[0].result, '0xc1cbc')
  t.equal(answers[1].result, '793788')
  t.equal(answers[2].error.code, -32601)
  const tooLarge = await client.send(Array.from({ length: 6 }, (_, i) => call('eth_chainId', [], i)))
  t.equal(tooLarge.error.code, -32600, 'a batch over RPC_MAX_BATCH is refused whole')
  const empty = await client.send([])
  t.equal(empty.error.code, -32600)
})

t.test('client mistakes get the HTTP endpoint\'s codes and the socket stays open', async (t) => {
  const client = await connectWsRpc(t, wsUrlOf(url))
  const cases: unknown[] = [
    '{"jsonrpc":',
    { jsonrpc: '1.0', id: 1, method: 'eth_chainId' },
    call('eth_doesNotExist'),
    call('eth_sign', ['0x' + 'ab'.repeat(20), '0x00']),
    call('personal_unlockAccount', ['0x' + 'ab'.repeat(20), '']),
    call('admin_peers'),
    call('eth_getBalance', ['0x1234']),
    call('eth_getBalance', []),
    call('eth_getLogs', [{ address: 'nope' }]),
    call('eth_subscribe', ['newHeads', { address: '0x' + 'ab'.repeat(20) }]),
    call('eth_subscribe', ['syncing']),
    call('eth_subscribe', ['logs', { topics: ['0x12'] }]),
    call('eth_subscribe', ['logs', { blockHash: '0x' + '11'.repeat(32) }]),
    call('eth_unsubscribe', ['not hex'])
  ]
  const expected = [-32700, -32600, -32601, -32601, -32601, -32601, -32602, -32602, -32602, -32602, -32602, -32602, -32602, -32602]
  for (const [i, body] of cases.entries()) {
    const answer = await client.send(body)
    t.equal(answer.error?.code, expected[i], JSON.stringify(body))
    const method = (body as { method?: string }).method
    if (method === undefined || method === 'eth_subscribe' || method === 'eth_unsubscribe') continue
    const http = await postRpc(url, body)
    t.same(answer, http.json, `the same answer as over HTTP: ${JSON.stringify(body)}`)
  }
  t.equal(client.socket.readyState, WebSocket.OPEN)
  t.same(await client.call('eth_chainId', [], 99), { jsonrpc: '2.0', id: 99, result: '0xc1cbc' })
})

t.test('eth_subscribe over HTTP answers -32601, naming the WebSocket', async (t) => {
  const { json } = await postRpc(url, call('eth_subscribe', ['newHeads']))
  t.equal(json.error.code, -32601)
  t.match(json.error.data, /WebSocket/)
})

t.test('eth_unsubscribe of an id the connection does not hold answers false', async (t) => {
  const client = await connectWsRpc(t, wsUrlOf(url))
  t.same(await client.call('eth_unsubscribe', ['0x' + 'cd'.repeat(16)], 5), { jsonrpc: '2.0', id: 5, result: false })
})

t.test('an upgrade to a path that serves no WebSocket is still refused with 404', async (t) => {
  const socket = new WebSocket(wsUrlOf(url, '/api/v2/stats'))
  socket.on('error', () => {})
  const [, response] = await once(socket, 'unexpected-response') as [unknown, { statusCode: number }]
  t.equal(response.statusCode, 404)
  socket.terminate()
})

t.test('each call over the socket is counted in the JSON-RPC metrics by its method', async (t) => {
  const client = await connectWsRpc(t, wsUrlOf(url))
  await client.send([call('web3_clientVersion', [], 1), call('web3_clientVersion', [], 2)])
  const { text } = await app.metrics.scrape()
  t.match(text, /gateway_jsonrpc_request_duration_seconds_count\{method="web3_clientVersion"\} 2\n/)
})
