// The JSON-RPC endpoint's fast path (plugins/rpc-proxy/fast-path.ts): a
// public POST to / or /rpc is answered ahead of Fastify's router, and must
// answer exactly as the route does (POST /rpc? is the same route, which the
// fast path never takes): status, body and headers, the rate limit's count
// and refusal, CORS, metrics. Requests it must not take (a key it does not
// know live, a body over the limit or without a length) go to Fastify; keyed
// requests are fast-path-keys.test.ts's. Each test speaks from its own
// loopback address (127.0.0.N), so each has a whole budget.
import t from 'tap'
import { build } from '../../helper.ts'
import { createApiKey, revokeApiKeys } from '../../../core/api-keys/store.ts'
import { parsePrometheusText, sampleValue } from '../../support/prometheus.ts'
import { isRevoked, probeFastPath, rpcCall as call, untilLookup } from '../../support/fast-path.ts'

const PUBLIC_PER_MIN = 12
const LISTED_ORIGIN = 'https://wallet.example'
const MAX_BODY_BYTES = 2048
const { app, url } = await build(t, {
  RATE_LIMIT_ENABLED: 'true',
  RATE_LIMIT_PUBLIC_PER_MIN: String(PUBLIC_PER_MIN),
  CORS_ORIGINS: `${LISTED_ORIGIN},https://dapp.example`,
  RPC_MAX_BODY_BYTES: String(MAX_BODY_BYTES)
})
const { post, sameAsRoute, newAddress } = probeFastPath(app, url)

t.test('the fast path answers as the route does: status, body and headers', async (t) => {
  await app.jsonRpcCache?.head()
  const cases: Array<[string, string | Buffer, Record<string, string>?]> = [
    ['eth_chainId', JSON.stringify(call('eth_chainId', 7))],
    ['a kept eth_blockNumber with a string id', JSON.stringify(call('eth_blockNumber', 'abc'))],
    ['a batch mixing local, kept, refused and notification items in order',
      JSON.stringify([call('eth_chainId', 1), call('eth_blockNumber', 2), call('eth_nope', 3), { jsonrpc: '2.0', method: 'eth_chainId' }, call('eth_gasPrice', null)])],
    ['a single notification', JSON.stringify({ jsonrpc: '2.0', method: 'eth_blockNumber' })],
    ['a batch of notifications', JSON.stringify([{ jsonrpc: '2.0', method: 'eth_blockNumber' }])],
    ['a body that is not JSON', '{"jsonrpc": "2.0", '],
    ['bad params', JSON.stringify(call('eth_getBalance', 4, ['0x12']))],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
    ['text/plain', JSON.stringify(call('eth_chainId')), { 'content-type': 'text/plain' }],
    ['no content type', JSON.stringify(call('net_version'))],
    ['a listed origin', JSON.stringify(call('eth_chainId')), { 'content-type': 'application/json', origin: LISTED_ORIGIN }],
    ['an origin not listed', JSON.stringify(call('eth_chainId')), { 'content-type': 'application/json', origin: 'https://other.example' }]
  ]
  for (const [name, body, headers] of cases) await sameAsRoute(t, name, body, { headers: headers ?? (name === 'no content type' ? {} : undefined) })
})

t.test('a batch costs its number of requests; over the limit it answers 429 for each id, with retry-after, in the metrics', async (t) => {
  const address = newAddress()
  const rejections = async (): Promise<number> => sampleValue(parsePrometheusText((await app.inject({ method: 'GET', url: '/metrics' })).body), 'gateway_rate_limit_rejections_total', { tier: 'public' }) ?? 0
  const before = await rejections()
  const batch = await post(address, '/', JSON.stringify([call('eth_chainId', 1), call('eth_chainId', 2), call('eth_chainId', 3), call('eth_chainId', 4), call('eth_chainId', 5)]))
  t.equal(batch.status, 200)
  t.equal(batch.headers['x-ratelimit-limit'], String(PUBLIC_PER_MIN))
  t.equal(batch.headers['x-ratelimit-remaining'], String(PUBLIC_PER_MIN - 5))
  for (let i = 0; i < PUBLIC_PER_MIN - 5; i++) t.equal((await post(address, '/rpc', JSON.stringify(call('eth_chainId')))).status, 200)
  const refused = await post(address, '/rpc', JSON.stringify([call('eth_chainId', 'a'), call('eth_blockNumber', 9)]))
  t.equal(refused.status, 429)
  t.same(JSON.parse(refused.text).map((a: { id: unknown, error: { code: number } }) => [a.id, a.error.code]), [['a', -32005], [9, -32005]])
  const reset = Number(refused.headers['x-ratelimit-reset'])
  t.ok(reset > 0 && reset <= 60)
  t.equal(refused.headers['retry-after'], String(reset))
  t.equal(refused.headers['x-ratelimit-remaining'], '0')
  t.equal(await rejections(), before + 1, 'counted in gateway_rate_limit_rejections_total')
  const route = await post(address, '/rpc?', JSON.stringify(call('eth_chainId', 'r')))
  t.equal(route.status, 429, 'the route refuses the same address: one budget')
  t.equal(route.text, (await post(address, '/rpc', JSON.stringify(call('eth_chainId', 'r')))).text)
})

t.test('requests with a revoked or malformed API key, or a body over the limit, go to the route, which checks them', async (t) => {
  const { key } = await createApiKey(app.db.knex, { label: 'fast-path', tier: 'premium' })
  await revokeApiKeys(app.db.knex, 'fast-path')
  // Until then its creation may be the last this instance heard of it: the key would be live (plugins/auth refuses it within milliseconds).
  await untilLookup(app, key, isRevoked)
  const body = JSON.stringify(call('eth_chainId'))
  const taken = app.frontDoor.taken()
  const keyed: Array<Record<string, string>> = [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }, { 'x-api-key': 'not-a-key' }]
  for (const headers of keyed) {
    const answer = await post(newAddress(), '/rpc', body, { headers: { 'content-type': 'application/json', ...headers } })
    t.equal(answer.status, 401, `${Object.keys(headers)[0]}: refused`)
    t.equal(JSON.parse(answer.text).error.code, -32001)
  }
  t.equal((await post(newAddress(), `/rpc/${key}`, body)).status, 401, 'a revoked key in the path')
  t.equal((await post(newAddress(), `/rpc?apikey=${key}`, body)).status, 401, 'a revoked key in the query')
  const tooLarge = await post(newAddress(), '/rpc', JSON.stringify(call('eth_chainId', 1, ['x'.repeat(MAX_BODY_BYTES)])))
  t.equal(tooLarge.status, 413)
  t.equal(JSON.parse(tooLarge.text).error.code, -32600)
  t.equal(app.frontDoor.taken(), taken, 'none of them was taken')
})

t.test('each call answered on the fast path is timed into the JSON-RPC metrics', async (t) => {
  const count = async (): Promise<number> => sampleValue(parsePrometheusText((await app.inject({ method: 'GET', url: '/metrics' })).body), 'gateway_jsonrpc_request_duration_seconds_count', { method: 'eth_chainId' }) ?? 0
  const before = await count()
  const address = newAddress()
  await post(address, '/rpc', JSON.stringify(call('eth_chainId')))
  await post(address, '/', JSON.stringify([call('eth_chainId', 1), call('eth_chainId', 2)]))
  t.equal(await count(), before + 3)
})
