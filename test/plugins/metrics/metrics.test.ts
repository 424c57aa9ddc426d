// GET /metrics on a real gateway (Geth, PostgreSQL, indexer): the exposition
// parses, the counters move with the requests made, and only loopback,
// METRICS_ALLOW and ADMIN_TOKEN holders may read it.
import t from 'tap'
import { build, postRpc } from '../../helper.ts'
import { postGraphql } from '../../support/graphql.ts'
import { parsePrometheusText, sampleValue, type Exposition } from '../../support/prometheus.ts'

const ADMIN_TOKEN = 'test-admin-token-0123456789'
const { app, url } = await build(t, { ADMIN_TOKEN, METRICS_ALLOW: '10.9.0.0/16, 2001:db8::7' })

async function scrape (): Promise<Exposition> {
  const response = await app.inject({ method: 'GET', url: '/metrics' })
  t.equal(response.statusCode, 200, response.body)
  t.match(response.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  return parsePrometheusText(response.body)
}

const count = (e: Exposition, name: string, labels: Record<string, string>): number => sampleValue(e, `${name}_count`, labels) ?? 0

t.test('/metrics parses and JSON-RPC calls are counted per method, batch items each', async (t) => {
  const before = await scrape()
  for (let i = 0; i < 3; i++) t.equal((await postRpc(url, { jsonrpc: '2.0', id: i, method: 'eth_blockNumber', params: [] })).status, 200)
  await postRpc(url, [{ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }, { jsonrpc: '2.0', id: 2, method: 'no_suchMethod', params: [] }])
  await postRpc(url, 'not json')
  const after = await scrape()
  const moved = (method: string): number => count(after, 'gateway_jsonrpc_request_duration_seconds', { method }) - count(before, 'gateway_jsonrpc_request_duration_seconds', { method })
  t.equal(moved('eth_blockNumber'), 3)
  t.equal(moved('eth_chainId'), 1)
  t.equal(moved('(invalid)'), 2, 'an unknown method and a body that is no JSON, never the client\'s text as a label')
  t.equal(after.types.get('gateway_jsonrpc_request_duration_seconds'), 'histogram')
  const buckets = after.samples.filter((s) => s.name === 'gateway_jsonrpc_request_duration_seconds_bucket' && s.labels.method === 'eth_blockNumber')
  t.equal(buckets.at(-1)?.labels.le, '+Inf')
  t.equal(buckets.at(-1)?.value, count(after, 'gateway_jsonrpc_request_duration_seconds', { method: 'eth_blockNumber' }))
})

t.test('REST requests are counted by route pattern and status, GraphQL by operation type', async (t) => {
  const before = await scrape()
  for (const path of ['/api/v2/blocks/0', '/api/v2/blocks/1', '/api/v2/blocks/nonsense']) await app.inject({ method: 'GET', url: path })
  t.equal((await postGraphql(app, '{ block(number: 0) { hash } }')).status, 200)
  await postGraphql(app, 'query Named { block(number: 0) { hash } }')
  await postGraphql(app, '{ not valid')
  const after = await scrape()
  const moved = (name: string, labels: Record<string, string>): number => count(after, name, labels) - count(before, name, labels)
  const route = { interface: 'rest', route: '/api/v2/blocks/:block_hash_or_number_param' }
  t.equal(moved('gateway_http_request_duration_seconds', { ...route, status: '200' }) + moved('gateway_http_request_duration_seconds', { ...route, status: '404' }), 2)
  t.equal(moved('gateway_http_request_duration_seconds', { ...route, status: '422' }), 1)
  t.equal(moved('gateway_graphql_request_duration_seconds', { operation: 'query', status: '200' }), 2)
  t.equal(moved('gateway_graphql_request_duration_seconds', { operation: 'invalid' }), 1)
})

t.test('/metrics reports the node, the indexer, the pools and the process', async (t) => {
  const head = Number(await app.geth.rpc.call<string>('eth_blockNumber'))
  const e = await scrape()
  t.ok(sampleValue(e, 'gateway_geth_head_block')! >= head)
  t.ok(sampleValue(e, 'gateway_geth_head_age_seconds')! >= 0)
  t.equal(sampleValue(e, 'gateway_geth_supervisor_restarts'), 0)
  t.ok(sampleValue(e, 'gateway_indexer_head_block')! >= 0)
  t.ok(sampleValue(e, 'gateway_indexer_lag_blocks')! >= 0)
  t.equal(sampleValue(e, 'gateway_indexer_writer'), 1)
  t.ok(sampleValue(e, 'gateway_indexer_blocks_per_second')! >= 0)
  t.equal(sampleValue(e, 'gateway_db_pool_connections', { pool: 'knex', state: 'max' }), app.db.knex.client.pool.max)
  t.ok(sampleValue(e, 'gateway_db_pool_connections', { pool: 'prepared', state: 'max' })! > 0)
  t.ok(sampleValue(e, 'process_resident_memory_bytes')! > 0)
  t.ok(sampleValue(e, 'nodejs_eventloop_lag_seconds') !== undefined)
})

// Refusals themselves are counted in test/plugins/rate-limit/limits.test.ts, where limits are on.
t.test('the rate-limit rejections counter is exposed before any refusal', async (t) => {
  t.equal((await scrape()).types.get('gateway_rate_limit_rejections_total'), 'counter')
})

t.test('/metrics answers 403 beyond loopback unless METRICS_ALLOW lists the address or ADMIN_TOKEN is presented', async (t) => {
  const get = async (remoteAddress: string, authorization?: string) =>
    await app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers: authorization === undefined ? {} : { authorization } })
  const refused = await get('203.0.113.5')
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().code, 'GW_ERR_METRICS_FORBIDDEN')
  t.equal((await get('203.0.113.5', 'Bearer wrong-token-0123456789')).statusCode, 403)
  t.equal((await get('203.0.113.5', `Bearer ${ADMIN_TOKEN}`)).statusCode, 200)
  t.equal((await get('10.9.44.1')).statusCode, 200, 'a subnet of METRICS_ALLOW')
  t.equal((await get('::ffff:10.9.44.1')).statusCode, 200, 'as a dual-stack socket reports IPv4')
  t.equal((await get('10.10.0.1')).statusCode, 403)
  t.equal((await get('2001:db8::7')).statusCode, 200)
  t.equal((await get('2001:db8::8')).statusCode, 403)
  t.equal((await get('::1')).statusCode, 200)
})

t.test('METRICS_ENABLED=false answers 404 at /metrics', async (t) => {
  const off = await build(t, { METRICS_ENABLED: 'false' })
  const response = await off.app.inject({ method: 'GET', url: '/metrics' })
  t.equal(response.statusCode, 404)
  t.equal(response.json().code, 'GW_ERR_ROUTE_NOT_FOUND')
})
