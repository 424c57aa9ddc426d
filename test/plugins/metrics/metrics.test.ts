// GET /metrics on a real gateway (Geth, PostgreSQL, indexer): the exposition
// parses, the counters move with the requests made, the gauges say what the
// node, the database, the faucet and the open sockets are, and only loopback,
// METRICS_ALLOW and ADMIN_TOKEN holders may read it. docs/operations.md lists
// every metric of the registry and the Grafana dashboard reads only those.
import t from 'tap'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import WebSocket from 'ws'
import { build, postRpc } from '../../helper.ts'
import { postGraphql } from '../../support/graphql.ts'
import { parsePrometheusText, sampleValue, type Exposition } from '../../support/prometheus.ts'
import { writeFundedAlloc } from '../../support/blocks.ts'
import { BUNDLED_VERSION, compileStandard, createSender, standardInput } from '../../support/verify.ts'
import { promqlMetricNames } from '../../support/promql.ts'
import { PACKAGE_VERSION } from '../../../core/version.ts'

const ADMIN_TOKEN = 'test-admin-token-0123456789'
const { wallets, allocFile } = await writeFundedAlloc(t, 1)
const { app, url, config } = await build(t, { ADMIN_TOKEN, METRICS_ALLOW: '10.9.0.0/16, 2001:db8::7', FAUCET_ENABLED: 'true', GENESIS_ALLOC: allocFile })
const sender = createSender(app.geth.rpc, wallets[0]!)
const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Counted {
  uint256 public n;
  function inc () external { n++; }
  function fail () external pure { revert("no"); }
}
`
const input = standardInput({ 'Counted.sol': SOURCE })
const counted = compileStandard(input, 'Counted.sol', 'Counted')
const contract = await sender.deploy(counted.bytecode)

async function scrape (): Promise<Exposition> {
  const response = await app.inject({ method: 'GET', url: '/metrics' })
  t.equal(response.statusCode, 200, response.body)
  t.match(response.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  return parsePrometheusText(response.body)
}

const count = (e: Exposition, name: string, labels: Record<string, string>): number => sampleValue(e, `${name}_count`, labels) ?? 0
const total = (e: Exposition, name: string, labels: Record<string, string>): number => sampleValue(e, name, labels) ?? 0

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

t.test('JSON-RPC answers are counted by method and outcome: ok or the error code, an unknown method under one label', async (t) => {
  const before = await scrape()
  const call = (method: string, params: unknown[], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params })
  await postRpc(url, call('eth_blockNumber', []))
  await postRpc(url, [call('eth_chainId', []), call('eth_getBalance', ['not an address', 'latest'], 2), call('no_suchMethod', [], 3), call('other_madeUp', [], 4)])
  await postRpc(url, 'not json')
  await postRpc(url, [])
  // Reverts come from Geth: code 3 through the cache, and a forwarded call's own error read from Geth's answer.
  const reverted = await postRpc(url, call('eth_call', [{ to: contract.address, data: counted.abi.encodeFunctionData('fail') }, 'latest']))
  t.equal(reverted.json.error?.code, 3, JSON.stringify(reverted.json))
  const rejected = await postRpc(url, call('eth_sendRawTransaction', ['0x00']))
  t.ok(rejected.json.error !== undefined, JSON.stringify(rejected.json))
  const after = await scrape()
  t.equal(after.types.get('gateway_jsonrpc_responses_total'), 'counter')
  const moved = (method: string, outcome: string): number => total(after, 'gateway_jsonrpc_responses_total', { method, outcome }) - total(before, 'gateway_jsonrpc_responses_total', { method, outcome })
  t.equal(moved('eth_blockNumber', 'ok'), 1)
  t.equal(moved('eth_chainId', 'ok'), 1, 'each call of a batch')
  t.equal(moved('eth_getBalance', '-32602'), 1)
  t.equal(moved('(invalid)', '-32601'), 2, 'unknown methods share one label')
  t.equal(moved('(invalid)', '-32700'), 1, 'a body that is not JSON')
  t.equal(moved('(invalid)', '-32600'), 1, 'an empty batch')
  t.equal(moved('eth_call', '3'), 1, 'a revert')
  t.equal(moved('eth_sendRawTransaction', String(rejected.json.error.code)), 1, 'Geth\'s own error for a call forwarded untouched')
  t.notOk(after.samples.some((s) => s.labels.method === 'no_suchMethod' || s.labels.method === 'other_madeUp'), 'never the client\'s text')
})

t.test('JSON-RPC answers over the WebSocket are counted by outcome too', async (t) => {
  const before = await scrape()
  const socket = new WebSocket(url.replace('http', 'ws') + '/ws')
  await once(socket, 'open')
  const answered = once(socket, 'message')
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_getBalance', params: [] }))
  t.equal(JSON.parse(String((await answered)[0])).error.code, -32602)
  socket.close()
  await once(socket, 'close')
  const after = await scrape()
  t.equal(total(after, 'gateway_jsonrpc_responses_total', { method: 'eth_getBalance', outcome: '-32602' }) - total(before, 'gateway_jsonrpc_responses_total', { method: 'eth_getBalance', outcome: '-32602' }), 1)
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
  t.equal(e.types.get('gateway_geth_supervisor_restarts_total'), 'counter')
  t.equal(sampleValue(e, 'gateway_geth_supervisor_restarts_total'), 0)
  t.equal(sampleValue(e, 'gateway_geth_up'), 1)
  t.equal(sampleValue(e, 'gateway_database_up'), 1)
  t.ok(sampleValue(e, 'gateway_indexer_head_block')! >= 0)
  t.ok(sampleValue(e, 'gateway_indexer_lag_blocks')! >= 0)
  t.equal(sampleValue(e, 'gateway_indexer_writer'), 1)
  t.ok(sampleValue(e, 'gateway_indexer_blocks_per_second')! >= 0)
  t.equal(sampleValue(e, 'gateway_db_pool_connections', { pool: 'knex', state: 'max' }), app.db.knex.client.pool.max)
  t.ok(sampleValue(e, 'gateway_db_pool_connections', { pool: 'prepared', state: 'max' })! > 0)
  t.ok(sampleValue(e, 'process_resident_memory_bytes')! > 0)
  t.ok(sampleValue(e, 'nodejs_eventloop_lag_seconds') !== undefined)
})

t.test('/metrics reports the faucet\'s balance in coins', async (t) => {
  const wei = BigInt(await app.geth.rpc.call<string>('eth_getBalance', [app.faucet!.address, 'latest']))
  const coins = sampleValue(await scrape(), 'gateway_faucet_balance_coins', { address: app.faucet!.address })
  t.ok(wei > 0n)
  t.ok(coins !== undefined && Math.abs(coins - Number(wei) / 1e18) < 1e-6 * coins, `${coins} coins, ${wei} wei`)
})

t.test('/metrics reports what is running: the version, the chain ID, Geth\'s and Node\'s versions', async (t) => {
  const info = (await scrape()).samples.filter((s) => s.name === 'gateway_build_info')
  t.equal(info.length, 1)
  t.equal(info[0]!.value, 1)
  t.match(info[0]!.labels, { version: PACKAGE_VERSION, chain_id: String(config.chainId), node_version: process.version })
  t.match(info[0]!.labels.geth_version, /^v1\.13\.15-stable/)
})

t.test('/metrics counts open WebSockets by interface and open HTTP connections', async (t) => {
  const ws = url.replace('http', 'ws')
  const open = (e: Exposition, iface: string): number => sampleValue(e, 'gateway_websocket_connections', { interface: iface }) ?? 0
  const before = await scrape()
  const sockets = [
    new WebSocket(`${ws}/ws`),
    new WebSocket(`${ws}/rpc`),
    new WebSocket(`${ws}/api/v2/graphql`, 'graphql-transport-ws'),
    new WebSocket(`${ws}/socket/v2/websocket?vsn=2.0.0`)
  ]
  await Promise.all(sockets.map(async (s) => await once(s, 'open')))
  const during = await scrape()
  t.equal(open(during, 'json-rpc') - open(before, 'json-rpc'), 2)
  t.equal(open(during, 'graphql') - open(before, 'graphql'), 1)
  t.equal(open(during, 'phoenix') - open(before, 'phoenix'), 1)
  t.ok(sampleValue(during, 'gateway_http_connections')! >= 4, `${sampleValue(during, 'gateway_http_connections')} connections`)
  await Promise.all(sockets.map(async (s) => { s.close(); await once(s, 'close') }))
  // The server hears each close a moment after the client.
  let after = await scrape()
  for (let i = 0; i < 50 && ['json-rpc', 'graphql', 'phoenix'].some((iface) => open(after, iface) !== open(before, iface)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    after = await scrape()
  }
  for (const iface of ['json-rpc', 'graphql', 'phoenix']) t.equal(open(after, iface), open(before, iface), `${iface}: closed`)
})

t.test('verifications are counted by result: full, already-verified, or the failure\'s code', async (t) => {
  const verify = async (sources: typeof input) => await app.inject({ method: 'POST', url: `/api/v2/smart-contracts/${contract.address}/verification/via/standard-input`, payload: { compiler_version: BUNDLED_VERSION, contract_name: 'Counted', input: sources } })
  const before = await scrape()
  const other = standardInput({ 'Counted.sol': SOURCE.replace('n++', 'n += 2') })
  t.equal((await verify(other)).statusCode, 400, 'other code')
  t.equal((await verify(input)).statusCode, 200)
  t.equal((await verify(input)).statusCode, 200)
  const after = await scrape()
  const moved = (result: string): number => total(after, 'gateway_verifications_total', { result }) - total(before, 'gateway_verifications_total', { result })
  t.equal(moved('GW_ERR_VERIFY_BYTECODE_MISMATCH'), 1)
  t.equal(moved('full'), 1)
  t.equal(moved('already-verified'), 1)
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

/** The names docs/operations.md's metrics table lists (first column); `x_*` entries are prefixes. */
async function documentedMetrics (): Promise<string[]> {
  const doc = await readFile(new URL('../../../docs/operations.md', import.meta.url), 'utf8')
  const section = doc.split(/^### Metrics$/m)[1]!.split(/^### /m)[0]!
  return [...section.matchAll(/^\| ((?:`[\w*]+`(?:, )?)+) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([\w*]+)`/g)].map((n) => n[1]!))
}

const registered = (): string[] => app.metrics.registry.getMetricsAsArray().map((m) => m.name)
const isDocumented = (name: string, documented: string[]): boolean =>
  documented.some((d) => d.endsWith('*') ? name.startsWith(d.slice(0, -1)) : d === name)

t.test('docs/operations.md lists every metric of the registry, and none the registry lacks', async (t) => {
  const documented = await documentedMetrics()
  const names = registered()
  t.ok(documented.length > 25, `${documented.length} documented`)
  t.same(names.filter((name) => !isDocumented(name, documented)), [], 'every registered metric is documented')
  t.same(documented.filter((d) => !names.some((name) => isDocumented(name, [d]))), [], 'every documented metric is registered')
  t.notOk(documented.includes('gateway_geth_supervisor_restarts'), 'the restarts are a counter now')
})

t.test('docs/grafana-dashboard.json is a dashboard whose queries read only metrics the registry has', async (t) => {
  const dashboard = JSON.parse(await readFile(new URL('../../../docs/grafana-dashboard.json', import.meta.url), 'utf8'))
  t.type(dashboard.title, 'string')
  t.type(dashboard.uid, 'string')
  t.type(dashboard.schemaVersion, 'number')
  t.ok(Array.isArray(dashboard.panels))
  const types = new Map(app.metrics.registry.getMetricsAsArray().map((m) => [m.name, String(m.type)]))
  // A histogram is read through its _bucket, _sum and _count series.
  const known = (name: string): boolean => types.has(name) || ['_bucket', '_sum', '_count'].some((suffix) => name.endsWith(suffix) && types.get(name.slice(0, -suffix.length)) === 'histogram')
  const queried = dashboard.panels.filter((p: { type: string }) => p.type !== 'row')
  t.ok(queried.length >= 10, `${queried.length} panels`)
  const used = new Set<string>()
  for (const panel of queried) {
    t.type(panel.title, 'string')
    t.ok(panel.gridPos !== undefined, `${panel.title}: placed`)
    t.ok(Array.isArray(panel.targets) && panel.targets.length > 0, `${panel.title}: has targets`)
    for (const target of panel.targets) {
      t.type(target.expr, 'string', `${panel.title}: a PromQL expression`)
      const names = promqlMetricNames(target.expr)
      t.ok(names.length > 0, `${panel.title}: ${target.expr} reads a metric`)
      for (const name of names) {
        t.ok(known(name), `${panel.title}: ${name} is registered`)
        used.add(name)
      }
    }
  }
  for (const variable of dashboard.templating?.list ?? []) {
    const metric = /label_values\((\w+),/.exec(variable.definition ?? '')?.[1]
    if (metric !== undefined) t.ok(known(metric), `variable ${variable.name}: ${metric} is registered`)
  }
  for (const main of ['gateway_jsonrpc_responses_total', 'gateway_geth_up', 'gateway_database_up', 'gateway_faucet_balance_coins', 'gateway_websocket_connections', 'gateway_build_info', 'gateway_verifications_total', 'gateway_geth_supervisor_restarts_total']) {
    t.ok(used.has(main), `a panel shows ${main}`)
  }
})

// Last: they kill and stop Geth.
t.test('gateway_geth_supervisor_restarts_total counts the supervisor\'s restarts', async (t) => {
  const supervisor = app.geth.supervisor!
  const restarted = once(supervisor, 'restarted')
  process.kill(supervisor.pid!, 'SIGKILL')
  await restarted
  t.equal(sampleValue(await scrape(), 'gateway_geth_supervisor_restarts_total'), 1)
})

t.test('gateway_geth_up is 0 once Geth does not answer; the database still answers', async (t) => {
  await app.geth.supervisor!.stop()
  // The head is read at most every half second, the faucet's balance every 5 s.
  await new Promise((resolve) => setTimeout(resolve, 5100))
  const e = await scrape()
  t.equal(sampleValue(e, 'gateway_geth_up'), 0)
  t.equal(sampleValue(e, 'gateway_database_up'), 1)
  t.equal(sampleValue(e, 'gateway_faucet_balance_coins'), undefined, 'no balance without the node')
})
