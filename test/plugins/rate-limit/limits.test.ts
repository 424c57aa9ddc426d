// One budget per client across REST, JSON-RPC and GraphQL, in memory: a
// public limit of 5 and a premium one of 12 a minute keep the test short.
// Each test speaks from its own address (inject's remoteAddress), so each
// starts with a whole budget.
import t, { type Test } from 'tap'
import type { InjectOptions } from 'fastify'
import { once } from 'node:events'
import WebSocket from 'ws'
import { build } from '../../helper.ts'
import { createApiKey, revokeApiKeys } from '../../../core/api-keys/store.ts'
import { generateApiKey } from '../../../core/api-keys/key-format.ts'
import { parsePrometheusText, sampleValue } from '../../support/prometheus.ts'

const PUBLIC = 5
const PREMIUM = 12
const { app, url } = await build(t, { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PUBLIC_PER_MIN: String(PUBLIC), RATE_LIMIT_PREMIUM_PER_MIN: String(PREMIUM) })

let nextAddress = 1
const newAddress = (): string => `10.0.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`

const rest = (remoteAddress: string, extra: Partial<InjectOptions> = {}) => app.inject({ method: 'GET', url: '/api/v2/main-page/indexing-status', remoteAddress, ...extra } as InjectOptions)
const rpc = (remoteAddress: string, body: unknown, extra: Partial<InjectOptions> = {}) =>
  app.inject({ method: 'POST', url: '/rpc', remoteAddress, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body), ...extra } as InjectOptions)
const graphql = (remoteAddress: string, extra: Partial<InjectOptions> = {}) =>
  app.inject({ method: 'POST', url: '/api/v2/graphql', remoteAddress, payload: { query: '{ __typename }' }, ...extra } as InjectOptions)
const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] })

/**
 * A key just created, once this instance has heard of its creation (within
 * milliseconds): its first request then costs its address nothing, where a
 * key never seen costs the address the lookup.
 */
async function createHeardKey (o: Parameters<typeof createApiKey>[1]): Promise<Awaited<ReturnType<typeof createApiKey>>> {
  const created = await createApiKey(app.db.knex, o)
  const deadline = Date.now() + 2000
  while (app.apiKeys.lookup.known(created.key) === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  return created
}

async function spend (remoteAddress: string, n: number, extra: Partial<InjectOptions> = {}): Promise<void> {
  for (let i = 0; i < n; i++) {
    const response = await rest(remoteAddress, extra)
    if (response.statusCode !== 200) throw new Error(`request ${i + 1} answered ${response.statusCode}`)
  }
}

function checkRefusalHeaders (t: Test, headers: Record<string, unknown>, limit: number): void {
  t.equal(headers['x-ratelimit-limit'], String(limit))
  t.equal(headers['x-ratelimit-remaining'], '0')
  const reset = Number(headers['x-ratelimit-reset'])
  t.ok(reset > 0 && reset <= 60, `x-ratelimit-reset ${reset}`)
  t.equal(headers['retry-after'], String(reset))
  t.match(headers['ratelimit-policy'], new RegExp(`;q=${limit};w=60$`))
  t.match(headers.ratelimit, new RegExp(`;r=0;t=${reset}$`))
}

t.test('REST: the request over the public limit answers 429 with its code, as a 401 does, and the limit headers', async (t) => {
  const address = newAddress()
  const first = await rest(address)
  t.equal(first.statusCode, 200)
  t.equal(first.headers['x-ratelimit-limit'], String(PUBLIC))
  t.equal(first.headers['x-ratelimit-remaining'], String(PUBLIC - 1))
  t.match(first.headers['ratelimit-policy'], `"public";q=${PUBLIC};w=60`)
  await spend(address, PUBLIC - 1)
  const refused = await rest(address)
  t.equal(refused.statusCode, 429)
  t.same(refused.json(), { statusCode: 429, code: 'GW_ERR_RATE_LIMITED', error: 'Too Many Requests', message: 'Too many requests' })
  checkRefusalHeaders(t, refused.headers, PUBLIC)
})

t.test('/metrics counts each refusal by tier', async (t) => {
  const rejections = async (tier: string): Promise<number> =>
    sampleValue(parsePrometheusText((await app.inject({ method: 'GET', url: '/metrics' })).body), 'gateway_rate_limit_rejections_total', { tier }) ?? 0
  const before = await rejections('public')
  const address = newAddress()
  await spend(address, PUBLIC)
  t.equal((await rest(address)).statusCode, 429)
  t.equal((await rpc(address, [call(1), call(2)])).statusCode, 429)
  t.equal(await rejections('public'), before + 2, 'two refused requests, whatever their size')
})

t.test('JSON-RPC: a single call over the limit gets -32005 with its own id, HTTP 429', async (t) => {
  const address = newAddress()
  await spend(address, PUBLIC)
  const refused = await rpc(address, call(77))
  t.equal(refused.statusCode, 429)
  t.same(refused.json(), { jsonrpc: '2.0', id: 77, error: { code: -32005, message: 'Limit exceeded', data: 'Too many requests' } })
  checkRefusalHeaders(t, refused.headers, PUBLIC)
})

t.test('JSON-RPC: a batch over the limit answers -32005 for each of its ids', async (t) => {
  const address = newAddress()
  await spend(address, PUBLIC - 1)
  const refused = await rpc(address, [call(1), call(2), { jsonrpc: '2.0', id: 'x', method: 'eth_blockNumber' }])
  t.equal(refused.statusCode, 429)
  t.same(refused.json().map((a: { id: unknown, error: { code: number } }) => [a.id, a.error.code]), [[1, -32005], [2, -32005], ['x', -32005]])
})

t.test('GraphQL: over the limit answers 429 with the error in errors[]', async (t) => {
  const address = newAddress()
  await spend(address, PUBLIC)
  const refused = await graphql(address)
  t.equal(refused.statusCode, 429)
  t.match(refused.json(), { data: null, errors: [{ message: 'Too many requests', extensions: { code: 'RATE_LIMITED' } }] })
  checkRefusalHeaders(t, refused.headers, PUBLIC)
})

t.test('one budget across interfaces: requests on REST, JSON-RPC and GraphQL spend the same one', async (t) => {
  const address = newAddress()
  t.equal((await rest(address)).statusCode, 200)
  t.equal((await rpc(address, call(1))).statusCode, 200)
  t.equal((await graphql(address)).statusCode, 200)
  const batch = await rpc(address, [call(2), call(3)])
  t.equal(batch.statusCode, 200)
  t.equal(batch.headers['x-ratelimit-remaining'], '0', 'the batch of two spent two')
  t.equal((await rest(address)).statusCode, 429)
  t.equal((await rpc(address, call(4))).statusCode, 429)
  t.equal((await graphql(address)).statusCode, 429)
})

t.test('health and metrics are never charged', async (t) => {
  const address = newAddress()
  for (let i = 0; i < PUBLIC + 2; i++) {
    t.equal((await app.inject({ method: 'GET', url: '/health', remoteAddress: address })).statusCode, 200)
    t.not((await app.inject({ method: 'GET', url: '/api/health', remoteAddress: address })).statusCode, 429)
    t.not((await app.inject({ method: 'GET', url: '/api/health/liveness', remoteAddress: address })).statusCode, 429)
  }
  const response = await rest(address)
  t.equal(response.statusCode, 200)
  t.equal(response.headers['x-ratelimit-remaining'], String(PUBLIC - 1))
})

t.test('a premium key sent each of the four ways gets the premium limit, apart from the address\'s public budget', async (t) => {
  const ways: Array<[string, (key: string) => Promise<{ statusCode: number, headers: Record<string, unknown> }>]> = [
    ['x-api-key header', async (key) => await rest(newAddress(), { headers: { 'x-api-key': key } })],
    ['apikey query', async (key) => await app.inject({ method: 'GET', url: `/api/v2/main-page/indexing-status?apikey=${key}`, remoteAddress: newAddress() })],
    ['Authorization: Bearer', async (key) => await graphql(newAddress(), { headers: { authorization: `Bearer ${key}` } })],
    ['/rpc/<key>', async (key) => await app.inject({ method: 'POST', url: `/rpc/${key}`, remoteAddress: newAddress(), payload: JSON.stringify(call(1)) })]
  ]
  for (const [way, send] of ways) {
    const { key } = await createApiKey(app.db.knex, { label: way, tier: 'premium' })
    for (let i = 1; i <= PREMIUM; i++) {
      const response = await send(key)
      t.equal(response.statusCode, 200, `${way}: request ${i}`)
      if (i === 1) {
        t.equal(response.headers['x-ratelimit-limit'], String(PREMIUM), `${way}: the premium limit`)
        t.match(response.headers['ratelimit-policy'], `"premium";q=${PREMIUM};w=60`)
      }
    }
    t.equal((await send(key)).statusCode, 429, `${way}: request ${PREMIUM + 1} refused`)
  }
})

t.test('Etherscan-style POST /api: a key in the form or JSON body is charged its own budget, not the address\'s; over it, Etherscan\'s refusal', async (t) => {
  const { key } = await createHeardKey({ label: 'etherscan body', tier: 'premium' })
  const address = newAddress()
  const form = async () => await app.inject({ method: 'POST', url: '/api', remoteAddress: address, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `module=stats&action=ethsupply&apikey=${key}` })
  const json = async () => await app.inject({ method: 'POST', url: '/api?module=stats&action=ethsupply', remoteAddress: address, payload: { apikey: key } })
  for (let i = 1; i <= PREMIUM; i++) {
    const response = await (i % 2 === 0 ? json() : form())
    t.not(response.statusCode, 429, `request ${i} is within the key's budget`)
    if (i === 1) t.match(response.headers['ratelimit-policy'], `"premium";q=${PREMIUM};w=60`, 'charged to the premium key')
  }
  const refused = await form()
  t.equal(refused.statusCode, 429, `request ${PREMIUM + 1} refused`)
  t.same(refused.json(), { status: '0', message: 'NOTOK', result: 'Max rate limit reached' }, 'in Etherscan\'s envelope and words')
  t.ok(Number(refused.headers['retry-after']) > 0, 'with Retry-After')
  t.equal((await rest(address)).headers['x-ratelimit-remaining'], String(PUBLIC - 1), 'the address\'s public budget was untouched')
})

t.test('public and premium budgets are separate for one address', async (t) => {
  const address = newAddress()
  // Heard: a key never seen would cost the spent address its lookup, and be refused 429.
  const { key } = await createHeardKey({ label: 'separate', tier: 'premium' })
  await spend(address, PUBLIC)
  t.equal((await rest(address)).statusCode, 429, 'the address is spent')
  t.equal((await rest(address, { headers: { 'x-api-key': key } })).statusCode, 200, 'its key is not')
})

/** Queries of the api_keys table from now until the test ends. */
function countKeyQueries (t: Test): () => number {
  let count = 0
  const onQuery = (query: { sql: string }): void => { if (query.sql.includes('api_keys')) count++ }
  app.db.knex.on('query', onQuery)
  t.teardown(() => { app.db.knex.off('query', onQuery) })
  return () => count
}

t.test('random well-formed keys are charged to the address: 401 within its public budget, then 429 without a query', async (t) => {
  const address = newAddress()
  const queries = countKeyQueries(t)
  for (let i = 0; i < PUBLIC; i++) {
    const response = await rest(address, { headers: { 'x-api-key': generateApiKey() } })
    t.equal(response.statusCode, 401, `random key ${i + 1}: refused`)
    t.equal(response.headers['x-ratelimit-remaining'], String(PUBLIC - i - 1), 'and charged to the address')
  }
  t.equal(queries(), PUBLIC, 'one query for each')
  const over = await rest(address, { headers: { 'x-api-key': generateApiKey() } })
  t.equal(over.statusCode, 429, 'past the budget: 429')
  checkRefusalHeaders(t, over.headers, PUBLIC)
  for (let i = 0; i < 20; i++) t.equal((await rest(address, { headers: { 'x-api-key': generateApiKey() } })).statusCode, 429)
  const rpcOver = await rpc(address, call(9), { headers: { 'content-type': 'application/json', 'x-api-key': generateApiKey() } })
  t.equal(rpcOver.statusCode, 429)
  t.same(rpcOver.json(), { jsonrpc: '2.0', id: 9, error: { code: -32005, message: 'Limit exceeded', data: 'Too many requests' } }, 'JSON-RPC: -32005 for its id')
  t.equal(queries(), PUBLIC, 'and none of them reached the database')
  t.equal((await rest(address)).statusCode, 429, 'it was the address\'s public budget they spent')
})

t.test('a repeated unknown key, a malformed and a revoked one are charged to the address too, and cost no query', async (t) => {
  const address = newAddress()
  const { key: revoked, listing } = await createHeardKey({ label: 'revoked, charged', tier: 'premium' })
  await revokeApiKeys(app.db.knex, listing.id)
  const unknown = generateApiKey()
  t.equal((await rest(newAddress(), { headers: { 'x-api-key': unknown } })).statusCode, 401, 'tried once elsewhere: now remembered as unknown')
  const deadline = Date.now() + 2000
  while (app.apiKeys.lookup.known(revoked) !== 'revoked' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  const queries = countKeyQueries(t)
  for (const key of [unknown, unknown, 'tg_short', revoked]) t.equal((await rest(address, { headers: { 'x-api-key': key } })).statusCode, 401)
  t.equal(queries(), 0, 'no query')
  const next = await rest(address)
  t.equal(next.headers['x-ratelimit-remaining'], String(PUBLIC - 5), 'four refusals and this request spent five')
  t.equal((await rest(address, { headers: { 'x-api-key': unknown } })).statusCode, 429, 'past the budget, a remembered key is refused 429 as well')
})

t.test('a key\'s own limit replaces its tier\'s, and a batch of 20 counts 20', async (t) => {
  const { key } = await createApiKey(app.db.knex, { label: 'own limit', tier: 'premium', limitPerMin: 22 })
  const batch = await rpc(newAddress(), Array.from({ length: 20 }, (_, i) => call(i)), { headers: { 'x-api-key': key, 'content-type': 'application/json' } })
  t.equal(batch.statusCode, 200)
  t.equal(batch.json().length, 20)
  t.equal(batch.headers['x-ratelimit-limit'], '22')
  t.equal(batch.headers['x-ratelimit-remaining'], '2')
  t.equal((await rest(newAddress(), { headers: { 'x-api-key': key } })).statusCode, 200)
  t.equal((await rest(newAddress(), { headers: { 'x-api-key': key } })).statusCode, 200)
  t.equal((await rest(newAddress(), { headers: { 'x-api-key': key } })).statusCode, 429)
})

t.test('a public-tier key is counted by key at the public limit', async (t) => {
  const { key } = await createApiKey(app.db.knex, { label: 'public tier', tier: 'public' })
  const response = await rest(newAddress(), { headers: { 'x-api-key': key } })
  t.equal(response.headers['x-ratelimit-limit'], String(PUBLIC))
  t.match(response.headers['ratelimit-policy'], '"public"')
})

t.test('X-Forwarded-For from a peer not in TRUST_PROXY is not believed: it buys no new budget', async (t) => {
  const address = newAddress()
  for (let i = 0; i < PUBLIC; i++) t.equal((await rest(address, { headers: { 'x-forwarded-for': `192.0.2.${i}` } })).statusCode, 200)
  t.equal((await rest(address, { headers: { 'x-forwarded-for': '198.51.100.7' } })).statusCode, 429)
})

t.test('IPv6 clients are counted per /64', async (t) => {
  await spend('2001:db8:aa:bb::1', PUBLIC)
  t.equal((await rest('2001:db8:aa:bb:ffff:1:2:3')).statusCode, 429, 'another address of the same /64 shares the budget')
  t.equal((await rest('2001:db8:aa:bc::1')).statusCode, 200, 'the next /64 has its own')
})

t.test('usage is recorded per key and day, in batches', async (t) => {
  const { key, listing } = await createApiKey(app.db.knex, { label: 'usage', tier: 'premium', limitPerMin: 3 })
  for (let i = 0; i < 4; i++) await rest(newAddress(), { headers: { 'x-api-key': key } })
  await app.apiKeys.usage.flush()
  const row = await app.db.knex('api_key_usage').first('requests', 'rejections').where('key_id', listing.id)
  t.same(row, { requests: '4', rejections: '1' })
  const used = await app.db.knex('api_keys').first('last_used_at').where('id', listing.id)
  t.ok(used.last_used_at instanceof Date, 'last use recorded')
})

t.test('a revoked key answers 401 and is never served as public', async (t) => {
  const { key, listing } = await createApiKey(app.db.knex, { label: 'revoked', tier: 'premium' })
  t.equal((await rest(newAddress(), { headers: { 'x-api-key': key } })).statusCode, 200)
  await revokeApiKeys(app.db.knex, listing.id)
  const deadline = Date.now() + 1000
  let status = 200
  while (status === 200 && Date.now() < deadline) status = (await rest(newAddress(), { headers: { 'x-api-key': key } })).statusCode
  t.equal(status, 401, 'refused within a second of the revocation')
})

t.test('GraphQL over WebSocket: the upgrade and each subscription start spend a request; events pushed do not', async (t) => {
  // The only test that speaks from 127.0.0.1 (the others inject from 10.0.x.y): a whole budget.
  const socket = new WebSocket(`${url.replace('http', 'ws')}/api/v2/graphql`, 'graphql-transport-ws')
  t.teardown(() => socket.close())
  const messages: Array<{ type: string, id?: string, payload?: any }> = []
  socket.on('message', (data) => messages.push(JSON.parse(String(data))))
  await once(socket, 'open')
  socket.send(JSON.stringify({ type: 'connection_init' }))
  for (let id = 1; id <= PUBLIC; id++) socket.send(JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: 'subscription { newBlock { number } }' } }))
  const deadline = Date.now() + 5000
  while (!messages.some((m) => m.type === 'error') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  const errors = messages.filter((m) => m.type === 'error')
  t.same(errors.map((m) => m.id), [String(PUBLIC)], 'the upgrade and 4 starts spent 5: the fifth start is refused')
  t.match(errors[0]?.payload, [{ message: 'Too many requests', extensions: { code: 'RATE_LIMITED' } }])
})

t.test('Phoenix socket: the upgrade and each message spend a request; over the budget the socket is closed with 1008', async (t) => {
  // A key with its own limit of 4: a budget apart from 127.0.0.1's (heard: its first lookup costs 127.0.0.1 nothing).
  const { key } = await createHeardKey({ label: 'phoenix', tier: 'public', limitPerMin: 4 })
  const socket = new WebSocket(`${url.replace('http', 'ws')}/socket/v2/websocket?vsn=2.0.0&apikey=${key}`)
  const replies: unknown[] = []
  socket.on('message', (data) => replies.push(JSON.parse(String(data))))
  await once(socket, 'open')
  for (let ref = 1; ref <= 4; ref++) socket.send(JSON.stringify([null, String(ref), 'phoenix', 'heartbeat', {}]))
  const [code, reason] = await once(socket, 'close') as [number, Buffer]
  t.equal(code, 1008)
  t.equal(String(reason), 'rate limit exceeded')
  t.same(replies.map((r) => (r as unknown[])[1]), ['1', '2', '3'], 'the upgrade and three heartbeats spent 4: the fourth heartbeat closed the socket')
})
