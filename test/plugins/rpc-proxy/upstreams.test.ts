// RPC_UPSTREAMS (core/rpc/upstreams.ts, core/json-rpc/failover.ts) with real nodes:
// an instance whose node is reached through a TCP proxy the test stops (the
// local node refusing, as while the supervisor restarts Geth), a plain Geth
// initialised from the same genesis as its upstream (not peered: it stays at
// the genesis, so it falls behind once the chain moves), and a `--dev` Geth,
// another chain, beside it.
import t from 'tap'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Wallet } from 'ethers'
import { build } from '../../helper.ts'
import { buildSecondInstance } from '../../support/second-instance.ts'
import { startTcpProxy, throughProxy } from '../../support/tcp-proxy.ts'
import { startPlainGeth } from '../../../scripts/lib/plain-geth.ts'
import { sign } from '../../support/blocks.ts'
import { cachedGethPath } from '../../../geth/install.ts'
import { CHAIN_ID } from '../../../core/config.ts'
import { createServer, type Socket } from 'node:net'
import { once } from 'node:events'
import pino from 'pino'
import { LOCAL_RETRY_MS, createFailoverClient } from '../../../core/json-rpc/failover.ts'
import { createUpstreams } from '../../../core/rpc/upstreams.ts'
import { createRpcClient } from '../../../core/rpc/client.ts'
import { parsePrometheusText, sampleValue } from '../../support/prometheus.ts'

const CHECK_INTERVAL_MS = 200
const MAX_LAG_BLOCKS = 3

const gateway = await build(t)
const { app, chain } = gateway
const bin = cachedGethPath(gateway.config.geth.cacheDir)
const upstream = await startPlainGeth(t, bin, { genesisFile: join(chain.dataDir, 'genesis.json'), networkId: CHAIN_ID })
const otherChain = await startPlainGeth(t, bin)
const target = (url: string) => ({ host: '127.0.0.1', port: Number(new URL(url).port) })
const httpProxy = await startTcpProxy(t, target(app.geth.rpc.url))
const wsProxy = await startTcpProxy(t, target(app.geth.wsUrl!))
const instance = await buildSecondInstance(t, gateway, {
  GETH_RPC_URL: throughProxy(app.geth.rpc.url, httpProxy),
  GETH_WS_URL: throughProxy(app.geth.wsUrl!, wsProxy),
  RPC_UPSTREAMS: `${upstream.url}, ${otherChain.url}/?key=secret`,
  RPC_UPSTREAM_CHECK_INTERVAL_MS: String(CHECK_INTERVAL_MS),
  RPC_UPSTREAM_MAX_LAG_BLOCKS: String(MAX_LAG_BLOCKS),
  RPC_TIMEOUT_MS: '3000',
  METRICS_ENABLED: 'true',
  LOG_LEVEL: 'silent'
})
const upstreams = instance.jsonRpcUpstreams!
const localRpc = app.geth.rpc

const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params })

async function post (body: unknown): Promise<{ status: number, json: any }> {
  const response = await instance.inject({ method: 'POST', url: '/rpc', payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
  return { status: response.statusCode, json: JSON.parse(response.body) }
}

async function health (): Promise<any> {
  return JSON.parse((await instance.inject({ method: 'GET', url: '/health' })).body)
}

/** The upstreams checked once wholly after now: check() joins a check under way, which may have begun before. */
async function checked (): Promise<void> {
  await upstreams.check()
  await upstreams.check()
}

let proxied = true

async function localDown (): Promise<void> {
  proxied = false
  await httpProxy.stop()
  await wsProxy.stop()
}

/** The proxies listening again, and the failover's pause of the local node (LOCAL_RETRY_MS) over. */
async function localUp (): Promise<void> {
  if (proxied) return
  proxied = true
  await httpProxy.start()
  await wsProxy.start()
  await sleep(LOCAL_RETRY_MS)
}

const usedOf = (name: string): number => upstreams.report().find((u) => u.url === name)!.used

t.test('health-checks: the same chain is ok with its head, another chain is never used, a URL\'s path and query are not shown', async (t) => {
  await checked()
  const report = (await health()).upstreams
  t.same(report, [
    { url: upstream.url, status: 'ok', head: 0, used: 0 },
    { url: otherChain.url, status: 'wrong-chain', head: report[1].head, used: 0 }
  ])
  t.notMatch(JSON.stringify(report), /secret/)
})

t.test('with the local node refusing, reads at latest and pinned go to an upstream of the same chain, singles and batches', async (t) => {
  const before = usedOf(upstream.url)
  await localDown()
  t.teardown(localUp)
  const single = await post(call('eth_getBalance', [chain.account.address, 'latest'], 'b'))
  t.equal(single.status, 200)
  t.same(single.json, { jsonrpc: '2.0', id: 'b', result: await upstream.rpc.call('eth_getBalance', [chain.account.address, 'latest']) })
  const head = await post(call('eth_blockNumber', [], 2))
  t.same(head.json, { jsonrpc: '2.0', id: 2, result: '0x0' })
  const batch = await post([call('eth_blockNumber', [], 1), call('eth_getBlockByNumber', ['0x0', false], 2), call('eth_chainId', [], 3)])
  t.same(batch.json.map((a: any) => a.id), [1, 2, 3])
  t.equal(batch.json[1].result.hash, (await localRpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x0', false])).hash, 'the same genesis')
  t.ok(usedOf(upstream.url) >= before + 3, 'the upstream answered them')
  t.equal(usedOf(otherChain.url), 0, 'the node of another chain answered nothing')
  t.equal(instance.jsonRpcCache?.head(), undefined, 'the cache is suspended while the local node is down')
  const response = await instance.inject({ method: 'GET', url: '/health' })
  t.equal(response.statusCode, 200, 'still serving: /health keeps it in rotation')
  t.match(JSON.parse(response.body), { status: 'degraded', geth: { status: 'unavailable' }, upstreams: [{ status: 'ok' }] })
  const metrics = parsePrometheusText((await instance.inject({ method: 'GET', url: '/metrics' })).body)
  t.ok((sampleValue(metrics, 'gateway_jsonrpc_upstream_calls_total', { upstream: upstream.url }) ?? 0) >= 3, 'counted in /metrics')
  t.equal(sampleValue(metrics, 'gateway_jsonrpc_upstream_status', { upstream: otherChain.url, status: 'wrong-chain' }), 1)
})

t.test('eth_sendRawTransaction goes through an upstream while the local node is down; a JSON-RPC error the local node answered does not', async (t) => {
  const wallet = chain.account
  const nonce = Number(await upstream.rpc.call<string>('eth_getTransactionCount', [wallet.address, 'latest']))
  const raw = await sign(wallet, { to: Wallet.createRandom().address, value: 1n, gasLimit: 21_000n, nonce })
  await localDown()
  const sent = await post(call('eth_sendRawTransaction', [raw]))
  await localUp()
  t.equal(sent.status, 200, JSON.stringify(sent.json))
  t.match(sent.json.result, /^0x[0-9a-f]{64}$/)
  t.not(await upstream.rpc.call('eth_getTransactionByHash', [sent.json.result]), null, 'the upstream has it in its pool')

  const before = usedOf(upstream.url)
  // From an account without funds: Geth refuses it (-32000 insufficient funds).
  const unfunded = await sign(Wallet.createRandom() as unknown as Wallet, { to: wallet.address, value: 1n, gasLimit: 21_000n, nonce: 0 })
  const refused = await post(call('eth_sendRawTransaction', [unfunded]))
  t.match(refused.json.error?.message, /insufficient funds/, 'the local node refused it')
  t.not(refused.json.error.code, -32603)
  t.equal(usedOf(upstream.url), before, 'and it was not asked of the upstream')
})

t.test('an upstream more than RPC_UPSTREAM_MAX_LAG_BLOCKS behind is not used for latest, still for a block it has', async (t) => {
  let nonce = Number(await localRpc.call<string>('eth_getTransactionCount', [chain.account.address, 'pending']))
  for (let i = 0; i <= MAX_LAG_BLOCKS; i++) {
    const before = Number(await localRpc.call<string>('eth_blockNumber'))
    await localRpc.call('eth_sendRawTransaction', [await sign(chain.account, { to: Wallet.createRandom().address, value: 1n, gasLimit: 21_000n, nonce: nonce++ })])
    while (Number(await localRpc.call<string>('eth_blockNumber')) <= before) await sleep(10)
  }
  await checked()
  t.equal(upstreams.report()[0]!.status, 'behind', JSON.stringify(upstreams.report()))
  t.equal((await health()).upstreams[0].status, 'behind')
  await localDown()
  t.teardown(localUp)
  const latest = await post(call('eth_blockNumber'))
  t.equal(latest.status, 503)
  t.equal(latest.json.error.code, -32603, 'nothing to answer latest with: the local node is down and the upstream behind')
  const balance = await post(call('eth_getBalance', [chain.account.address, 'latest']))
  t.equal(balance.json.error?.code, -32603)
  t.equal((await instance.inject({ method: 'GET', url: '/health' })).statusCode, 503, 'no upstream serves latest: unavailable as without upstreams')
  const pinned = await post(call('eth_getBlockByNumber', ['0x0', false]))
  t.equal(pinned.status, 200)
  t.equal(pinned.json.result.number, '0x0', 'a block the upstream has')
})

t.test('the local node answers again: calls go to it', async (t) => {
  await localUp()
  const before = usedOf(upstream.url)
  const head = Number(await localRpc.call<string>('eth_blockNumber'))
  const answer = await post(call('eth_blockNumber'))
  t.equal(Number(answer.json.result), head)
  t.equal(usedOf(upstream.url), before)
})

t.test('createFailoverClient: a local node that accepts and never answers costs one timeout, then calls go straight to an upstream for LOCAL_RETRY_MS', async (t) => {
  // A server that takes connections and never answers: a Geth that hangs.
  const held = new Set<Socket>()
  const hung = createServer((socket) => { held.add(socket) })
  hung.listen(0, '127.0.0.1')
  await once(hung, 'listening')
  t.teardown(() => { for (const s of held) s.destroy(); hung.close() })
  const log = pino({ level: 'silent' })
  const local = createRpcClient({ url: `http://127.0.0.1:${(hung.address() as { port: number }).port}`, timeoutMs: 500 })
  t.teardown(async () => await local.close())
  const list = createUpstreams({ urls: [upstream.url], chainId: CHAIN_ID, timeoutMs: 2000, checkIntervalMs: 60_000, maxLagBlocks: 1000, local, log })
  t.teardown(async () => await list.close())
  await list.check()
  let downs = 0
  const client = createFailoverClient({ local, upstreams: list, log, onLocalDown: () => { downs++ } })
  let startedAt = performance.now()
  t.equal(await client.call('eth_blockNumber'), '0x0', 'answered by the upstream after the timeout')
  t.ok(performance.now() - startedAt >= 400, 'after the local timeout')
  t.ok(client.localDown())
  startedAt = performance.now()
  const raw = await client.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_getBlockByNumber', params: ['0x0', false] }))
  t.ok(performance.now() - startedAt < 400, 'the next one did not wait for the local node again')
  t.equal(raw.upstream, upstream.url, 'and says where it came from')
  const items = await client.batchAnswers([{ method: 'eth_blockNumber', params: [] }])
  t.match(items, [{ result: '0x0', upstream: upstream.url }])
  t.equal(downs, 1, 'the local node went down once')
  await t.rejects(client.call('eth_getFilterChanges', ['0x1']), { name: 'RpcUnavailableError' }, 'a filter stays with the local node')
})
