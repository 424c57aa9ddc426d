// The JSON-RPC fast path (plugins/rpc-proxy/fast-path.ts) with API keys: a
// key this instance knows live, in the path (POST /rpc/<key>), X-API-Key or
// Authorization: Bearer, is answered ahead of Fastify's router exactly as the
// route answers it (status, body, headers with the key's limit), charged to
// the key (a premium key's traces at their weight), with the premium methods
// for a premium key. Every other key (never seen, revoked, two different
// ones, in the query or percent-encoded) goes to the route, which answers as
// it always has; and a key revoked is refused on the next request even over a
// connection kept open, or while its body is on the way.
import t from 'tap'
import { Agent } from 'node:http'
import { build } from '../../helper.ts'
import { createApiKey, revokeApiKeys, type NewApiKey } from '../../../core/api-keys/store.ts'
import { generateApiKey } from '../../../core/api-keys/key-format.ts'
import { parsePrometheusText, sampleValue } from '../../support/prometheus.ts'
import { isLive, isRevoked, probeFastPath, rpcCall as call, stableHeaders, until, untilLookup, type Answer } from '../../support/fast-path.ts'

const KEY_PER_MIN = 1000
const TRACE_WEIGHT = 7
const LISTED_ORIGIN = 'https://wallet.example'
const { app, url } = await build(t, {
  RATE_LIMIT_ENABLED: 'true',
  RATE_LIMIT_PUBLIC_PER_MIN: '50',
  RPC_TRACE_WEIGHT: String(TRACE_WEIGHT),
  CORS_ORIGINS: LISTED_ORIGIN
})
const { post, sameAsRoute, newAddress } = probeFastPath(app, url)
const json = { 'content-type': 'application/json' }

/** A key this instance has heard of (its creation's notice read): the fast path takes it from its first request. */
async function heardKey (o: NewApiKey): Promise<{ key: string, id: string }> {
  const { key, listing } = await createApiKey(app.db.knex, o)
  await untilLookup(app, key, isLive)
  return { key, id: listing.id }
}

/** Where a client may put its key on the fast path: the request's path and headers. */
const places = (key: string): Array<[string, { path: string, headers: Record<string, string> }]> => [
  ['the path', { path: `/rpc/${key}`, headers: json }],
  ['X-API-Key', { path: '/rpc', headers: { ...json, 'x-api-key': key } }],
  ['Authorization: Bearer', { path: '/', headers: { ...json, authorization: `Bearer ${key}` } }],
  ['the path and X-API-Key, the same key', { path: `/rpc/${key}`, headers: { ...json, 'x-api-key': key } }]
]

const REFUSED = { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Unauthorized', data: 'Invalid API key' } }
const premium = await heardKey({ label: 'premium', tier: 'premium', limitPerMin: KEY_PER_MIN })
const ordinary = await heardKey({ label: 'public tier', tier: 'public', limitPerMin: KEY_PER_MIN })

t.test('a live key in the path, X-API-Key or Bearer takes the fast path and is answered as the route answers it', async (t) => {
  await app.jsonRpcCache?.head()
  for (const [tier, key] of [['premium', premium.key], ['public', ordinary.key]] as const) {
    for (const [place, { path, headers }] of places(key)) {
      const name = (what: string): string => `${tier} key in ${place}, ${what}`
      const chainId = await sameAsRoute(t, name('eth_chainId'), JSON.stringify(call('eth_chainId', 7)), { path, headers })
      t.equal(chainId.headers['x-ratelimit-limit'], String(KEY_PER_MIN), name('the key\'s own limit'))
      t.equal(chainId.headers['ratelimit-policy'], `"${tier}";q=${KEY_PER_MIN};w=60`, name('the key\'s policy'))
      await sameAsRoute(t, name('a batch'), JSON.stringify([call('eth_chainId', 1), call('eth_blockNumber', 2), call('eth_nope', 3)]), { path, headers })
      await sameAsRoute(t, name('a body that is not JSON'), '{"jsonrpc": ', { path, headers })
      await sameAsRoute(t, name('a listed origin'), JSON.stringify(call('eth_chainId')), { path, headers: { ...headers, origin: LISTED_ORIGIN } })
      const pool = JSON.parse((await sameAsRoute(t, name('txpool_status'), JSON.stringify(call('txpool_status', 'p')), { path, headers })).text)
      if (tier === 'premium') t.match(pool.result, { pending: String, queued: String }, name('a premium method served'))
      else t.equal(pool.error.code, -32004, name('a premium method refused'))
    }
  }
})

t.test('a premium key\'s trace weighs RPC_TRACE_WEIGHT on the fast path, as on the route; anyone else\'s costs 1', async (t) => {
  const trace = JSON.stringify(call('debug_traceTransaction', 1, ['0x' + '00'.repeat(32)]))
  const remaining = (answer: Answer): number => Number(answer.headers['x-ratelimit-remaining'])
  for (const [key, weight] of [[premium.key, TRACE_WEIGHT], [ordinary.key, 1]] as const) {
    const headers = { ...json, 'x-api-key': key }
    const before = await post(newAddress(), '/rpc', JSON.stringify(call('eth_chainId')), { headers })
    const fast = await post(newAddress(), '/rpc', trace, { headers })
    const route = await post(newAddress(), '/rpc?', trace, { headers })
    t.equal(remaining(before) - remaining(fast), weight, `the fast path charged ${weight}`)
    t.equal(remaining(fast) - remaining(route), weight, `the route charged ${weight}`)
  }
})

t.test('a key over its limit is answered 429 on the fast path as on the route, counted under its tier', async (t) => {
  const { key } = await heardKey({ label: 'small', tier: 'premium', limitPerMin: 3 })
  const rejections = async (): Promise<number> => sampleValue(parsePrometheusText((await app.inject({ method: 'GET', url: '/metrics' })).body), 'gateway_rate_limit_rejections_total', { tier: 'premium' }) ?? 0
  const before = await rejections()
  const taken = app.frontDoor.taken()
  for (let i = 0; i < 3; i++) t.equal((await post(newAddress(), `/rpc/${key}`, JSON.stringify(call('eth_chainId')))).status, 200)
  const body = JSON.stringify([call('eth_chainId', 'a'), call('eth_blockNumber', 9)])
  const fast = await post(newAddress(), `/rpc/${key}`, body)
  t.equal(app.frontDoor.taken(), taken + 4, 'all four taken')
  t.equal(fast.status, 429)
  t.same(JSON.parse(fast.text).map((a: { id: unknown, error: { code: number } }) => [a.id, a.error.code]), [['a', -32005], [9, -32005]])
  t.equal(fast.headers['x-ratelimit-remaining'], '0')
  t.equal(fast.headers['retry-after'], fast.headers['x-ratelimit-reset'])
  t.equal(await rejections(), before + 1, 'counted in gateway_rate_limit_rejections_total')
  const route = await post(newAddress(), `/rpc/${key}?`, body)
  t.same([route.status, route.text, stableHeaders(route.headers)], [fast.status, fast.text, stableHeaders(fast.headers)], 'the route\'s 429, body and headers')
})

t.test('a key the fast path does not know live, or sent unusually, goes to the route, which answers as before', async (t) => {
  const revoked = await heardKey({ label: 'revoked', tier: 'premium' })
  await revokeApiKeys(app.db.knex, revoked.id)
  await untilLookup(app, revoked.key, isRevoked)
  const body = JSON.stringify(call('eth_chainId', 5))
  const refused: Array<[string, string, Record<string, string>]> = [
    ...[generateApiKey(), revoked.key].flatMap((key) => places(key).map(([place, { path, headers }]): [string, string, Record<string, string>] =>
      [`${key === revoked.key ? 'a revoked' : 'an unknown'} key in ${place}`, path, headers])),
    ['two live keys: the path and X-API-Key', `/rpc/${premium.key}`, { ...json, 'x-api-key': ordinary.key }],
    ['two live keys: X-API-Key and Bearer', '/rpc', { ...json, 'x-api-key': premium.key, authorization: `Bearer ${ordinary.key}` }]
  ]
  const served: Array<[string, string, Record<string, string>]> = [
    ['an Authorization of another scheme', '/rpc', { ...json, authorization: 'Basic dXNlcjpwYXNz' }],
    ['a live key in the query', `/rpc?apikey=${premium.key}`, json],
    ['a live key percent-encoded in the path', `/rpc/%74${premium.key.slice(1)}`, json],
    ['a live key in the path with a trailing slash', `/rpc/${premium.key}/`, json]
  ]
  const taken = app.frontDoor.taken()
  for (const [name, path, headers] of refused) {
    const answer = await post(newAddress(), path, body, { headers })
    t.same([answer.status, JSON.parse(answer.text).error?.code], [401, -32001], `${name}: refused by the route`)
  }
  for (const [name, path, headers] of served) {
    const answer = await post(newAddress(), path, body, { headers })
    t.same([answer.status, JSON.parse(answer.text).result], [200, '0xc1cbc'], `${name}: served by the route`)
  }
  t.equal(app.frontDoor.taken(), taken, 'none of them was taken')
})

// A revocation is heard through PostgreSQL's NOTIFY, within milliseconds: each test
// waits for that, then sends at once (the route would serve the key until then too).
t.test('a key revoked while its client keeps the connection open is refused on its next request', async (t) => {
  for (const i of [0, 1, 2]) {
    const { key, id } = await heardKey({ label: `kept open ${i}`, tier: 'premium' })
    const [place, { path, headers }] = places(key)[i]!
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    t.teardown(() => agent.destroy())
    const address = newAddress()
    const body = JSON.stringify(call('eth_chainId', 1))
    const taken = app.frontDoor.taken()
    t.equal((await post(address, path, body, { headers, agent })).status, 200, `${place}: served`)
    t.equal(app.frontDoor.taken(), taken + 1, `${place}: on the fast path`)
    await revokeApiKeys(app.db.knex, id)
    await untilLookup(app, key, (found) => !isLive(found))
    const next = await post(address, path, body, { headers, agent })
    t.ok(next.reusedSocket, `${place}: over the same connection`)
    t.same([next.status, JSON.parse(next.text)], [401, REFUSED], `${place}: refused`)
    t.equal(app.frontDoor.taken(), taken + 1, `${place}: by the route`)
  }
})

t.test('a key revoked while its body is on the way is refused once the body is read, as the route refuses it', async (t) => {
  const { key, id } = await heardKey({ label: 'mid-body', tier: 'premium' })
  const address = newAddress()
  const body = JSON.stringify(call('eth_chainId', 1))
  const taken = app.frontDoor.taken()
  const fast = await post(address, `/rpc/${key}`, body, {
    midBody: async () => {
      await until(() => app.frontDoor.taken() === taken + 1, 'the fast path to take the request')
      await revokeApiKeys(app.db.knex, id)
      await untilLookup(app, key, (found) => !isLive(found))
    }
  })
  t.same([fast.status, JSON.parse(fast.text)], [401, REFUSED], 'refused')
  const route = await post(address, `/rpc/${key}?`, body)
  t.same([route.status, route.text, stableHeaders(route.headers)], [fast.status, fast.text, stableHeaders(fast.headers)], 'as the route refuses it, headers included')
  t.equal(Number(fast.headers['x-ratelimit-remaining']) - Number(route.headers['x-ratelimit-remaining']), 1, 'each charged to the address, as a refused key is')
})

t.test('with limits off, a keyed request on the fast path carries no limit headers, and its use is recorded', async (t) => {
  const off = await build(t)
  const { key, listing } = await createApiKey(off.app.db.knex, { label: 'limits off', tier: 'premium' })
  await untilLookup(off.app, key, isLive)
  const probe = probeFastPath(off.app, off.url)
  const answer = await probe.sameAsRoute(t, 'limits off', JSON.stringify(call('txpool_status')), { path: `/rpc/${key}` })
  t.notOk(answer.headers['x-ratelimit-limit'], 'no limit headers')
  t.ok(JSON.parse(answer.text).result, 'a premium method served')
  for (let i = 0; i < 3; i++) await probe.post(probe.newAddress(), '/rpc', JSON.stringify(call('eth_chainId')), { headers: { ...json, 'x-api-key': key } })
  await off.app.apiKeys.usage.flush()
  const row = await off.app.db.knex('api_key_usage').first('requests').where('key_id', listing.id)
  t.same(row, { requests: '5' }, 'four requests on the fast path and one on the route')
})
