// The database away under a running gateway (here a proxy in front of the
// test's database, stopped): each API answers in its own documented shape,
// 503 and never 500 (REST and GraphQL theirs, the Etherscan-style /api its
// envelope, the Stats API its gRPC body), logged as a wait (warn), not a
// failure; JSON-RPC keeps serving, with the keys it already knows, and a key
// it has never seen answers a JSON-RPC error for the request's id. And the
// root error handler: a failure to reach the database answers 503
// GW_ERR_DATABASE_UNAVAILABLE, any other uncoded failure a masked 500.
import t from 'tap'
import { Writable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import pino from 'pino'
import { buildApp } from '../../plugins/index.ts'
import { testConfig } from '../helper.ts'
import { createTestChainFiles } from '../support/chain.ts'
import { createTestDatabase } from '../support/database.ts'
import { startTcpProxy, throughProxy } from '../support/tcp-proxy.ts'
import { createApiKey } from '../../core/api-keys/store.ts'
import { generateApiKey } from '../../core/api-keys/key-format.ts'
import { parsePrometheusText, sampleValue } from '../support/prometheus.ts'

const logs: Array<{ level: number, msg: string, reqId?: string, code?: string, channel?: string }> = []
const capture = new Writable({
  write (chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line))
    done()
  }
})
const chain = await createTestChainFiles(t)
const databaseUrl = await createTestDatabase(t)
const target = new URL(databaseUrl)
const proxy = await startTcpProxy(t, { host: target.hostname, port: Number(target.port) })
const config = testConfig(chain, throughProxy(databaseUrl, proxy))
const app = await buildApp(config, { logger: pino({ level: 'info' }, capture) })
t.teardown(async () => {
  await proxy.start().catch(() => {})
  await app.close()
})
app.get('/test/database-refused', async () => { throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }) })
app.get('/test/bug', async () => { throw new TypeError('a bug') })
await app.listen({ host: '127.0.0.1', port: 0 })

t.test('a database connection refused answers 503 with a coded JSON body', async (t) => {
  const response = await app.inject('/test/database-refused')
  t.equal(response.statusCode, 503)
  t.same(response.json(), { statusCode: 503, code: 'GW_ERR_DATABASE_UNAVAILABLE', error: 'Service Unavailable', message: 'The database is unavailable' })
  t.notMatch(response.body, '5432', 'no internal address')
})

t.test('any other failure is still a masked 500', async (t) => {
  const response = await app.inject('/test/bug')
  t.equal(response.statusCode, 500)
  t.same(response.json(), { statusCode: 500, error: 'Internal Server Error', message: 'Internal server error' })
})

const rpc = async (id: number, headers: Record<string, string>, path = '/rpc') =>
  await app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] }) })

t.test('with the database away, each API answers in its own shape; JSON-RPC keeps serving the keys it knows', async (t) => {
  const { key } = await createApiKey(app.db.knex, { label: 'known before the outage', tier: 'premium' })
  t.equal((await rpc(1, { 'x-api-key': key })).statusCode, 200, 'the key is known')
  t.equal((await app.inject(`/api/v2/blocks?apikey=${key}`)).statusCode, 200)

  await proxy.stop()
  // Past the second known keys are trusted while key changes cannot be heard: each is read again, and that fails.
  await sleep(1500)
  const before = logs.length

  for (const path of ['/rpc', `/rpc/${key}`]) {
    const known = await rpc(2, path === '/rpc' ? { 'x-api-key': key } : {}, path)
    t.equal(known.statusCode, 200, `JSON-RPC with a known key (${path === '/rpc' ? 'header' : 'path'}): served`)
    t.same(known.json(), { jsonrpc: '2.0', id: 2, result: '0xc1cbc' })
  }
  const taken = app.frontDoor.taken()
  const fast = await fetch(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/rpc/${key}`, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'eth_chainId', params: [] }) })
  t.same(await fast.json(), { jsonrpc: '2.0', id: 5, result: '0xc1cbc' }, 'JSON-RPC with a known key, over HTTP: served')
  t.equal(app.frontDoor.taken(), taken + 1, 'on the fast path (plugins/rpc-proxy/fast-path.ts), from memory as the route')
  const unseen = await rpc(3, { 'x-api-key': generateApiKey() })
  t.equal(unseen.statusCode, 503, 'JSON-RPC with a key never seen: 503')
  t.match(unseen.json(), { jsonrpc: '2.0', id: 3, error: { code: -32002, message: 'Resource unavailable', data: /database is unavailable/ } }, 'a JSON-RPC error for the request\'s id')
  t.same((await rpc(4, {})).json(), { jsonrpc: '2.0', id: 4, result: '0xc1cbc' }, 'JSON-RPC without a key: served')

  const rest = await app.inject('/api/v2/blocks')
  t.same({ status: rest.statusCode, body: rest.json() }, { status: 503, body: { message: 'The database is unavailable' } }, 'REST: Blockscout\'s body')
  const restUnseen = await app.inject(`/api/v2/blocks?apikey=${generateApiKey()}`)
  t.same({ status: restUnseen.statusCode, body: restUnseen.json() }, { status: 503, body: { message: 'The database is unavailable' } }, 'REST with a key never seen: the same')

  const graphql = await app.inject({ method: 'POST', url: '/api/v2/graphql', headers: { 'x-api-key': generateApiKey() }, payload: { query: '{ block(number: 1) { hash } }' } })
  t.equal(graphql.statusCode, 503, 'GraphQL with a key never seen: 503')
  t.equal(graphql.json().errors?.[0]?.extensions?.code, 'DATABASE_UNAVAILABLE', 'in errors[]')

  const etherscan = await app.inject('/api?module=account&action=txlist&address=0x0000000000000000000000000000000000000001')
  t.same({ status: etherscan.statusCode, body: etherscan.json() }, { status: 503, body: { status: '0', message: 'NOTOK', result: 'The database is unavailable' } }, 'Etherscan-style /api: its envelope, 503')
  const etherscanUnseen = await app.inject(`/api?module=account&action=txlist&address=0x0000000000000000000000000000000000000001&apikey=${generateApiKey()}`)
  t.same({ status: etherscanUnseen.statusCode, body: etherscanUnseen.json() }, { status: 503, body: { status: '0', message: 'NOTOK', result: 'The database is unavailable' } }, 'with a key never seen: the same')

  for (const path of ['/stats/api/v1/counters', '/stats/api/v1/lines/newTxns', `/stats/api/v1/pages/main?apikey=${generateApiKey()}`]) {
    const stats = await app.inject(path)
    t.same({ status: stats.statusCode, body: stats.json() }, { status: 503, body: { code: 14, message: 'The database is unavailable' } }, `Stats API ${path.split('?')[0]}: gRPC's UNAVAILABLE, 503`)
  }

  const away = parsePrometheusText((await app.inject('/metrics')).body)
  t.equal(sampleValue(away, 'gateway_database_up'), 0, '/metrics: the database is down')
  t.equal(sampleValue(away, 'gateway_geth_up'), 1, 'and Geth up')

  const failures = logs.slice(before).filter((l) => l.level >= 50 && /request failed/.test(l.msg))
  t.same(failures.map((l) => l.msg), [], 'no request logged as failed (error)')
  // Logged one way (plugins/send-error.ts): a coded 5xx at warn, with its code, channel and the request id.
  const waits = logs.slice(before).filter((l) => l.level === 40 && l.msg === 'request could not be served now' && l.code === 'GW_ERR_DATABASE_UNAVAILABLE')
  for (const channel of ['blockscout', 'etherscan', 'stats', 'graphql']) {
    t.ok(waits.some((l) => l.channel === channel && typeof l.reqId === 'string'), `${channel}: a warning with the request id`)
  }

  await proxy.start()
  const deadline = Date.now() + 30_000
  while ((await app.inject('/api/v2/blocks')).statusCode !== 200 && Date.now() < deadline) await sleep(200)
  t.equal((await app.inject('/api/v2/blocks')).statusCode, 200, 'back: REST answers again')
  t.equal((await rpc(5, { 'x-api-key': key })).statusCode, 200, 'and the key still works')
  // The database is asked at most once a second.
  await sleep(1100)
  t.equal(sampleValue(parsePrometheusText((await app.inject('/metrics')).body), 'gateway_database_up'), 1, '/metrics: the database is up again')
})
