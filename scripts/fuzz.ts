// `npm run fuzz`: generated hostile requests (fast-check) against a real
// gateway on a throwaway chain and database, across JSON-RPC (HTTP and
// WebSocket), REST, GraphQL (HTTP and subscriptions over WebSocket) and the
// Etherscan-style /api, bounded by FUZZ_REQUESTS and FUZZ_DURATION_S.
// Verdict: no 5xx, every answer in its interface's documented shape, the
// gateway alive with /health 200 at the end and its RSS (after a full GC)
// within FUZZ_RSS_MARGIN_MB of the baseline. Exit 0 on a pass, 1 on a fail
// (with fast-check's shrunk counterexamples printed), 2 when setup failed.
// Knobs and how to read the table: docs/hardening.md.
import { printTable } from './bench/report.ts'
import { createEtherscanTarget } from './fuzz/etherscan.ts'
import { createGraphqlTarget, readSchema } from './fuzz/graphql.ts'
import { createGraphqlWsTarget } from './fuzz/graphql-ws.ts'
import { harvestKnown } from './fuzz/harvest.ts'
import { createHttpClient } from './fuzz/http.ts'
import { createJsonRpcTarget } from './fuzz/json-rpc.ts'
import { createJsonRpcWsTarget } from './fuzz/json-rpc-ws.ts'
import { createRestTarget, restRoutes } from './fuzz/rest.ts'
import { runTarget, type FuzzTarget, type TargetResult } from './fuzz/run.ts'
import { GC_ON_SIGNAL_NODE_ARGS, memoryChecks, readMemoryAfterGc, type MemoryAfterGc } from './lib/process-memory.ts'
import { isGatewayAlive, prepareProofChain, readIntKnob, startIndexedGateway, type Cleanups } from './proof/proof-gateway.ts'
import { EXIT_FAILED, runProofSuite } from './proof/proof-suite.ts'

/**
 * Each interface's share of FUZZ_REQUESTS. A WebSocket session is one run
 * of its property but several requests (its frames): its share counts
 * sessions, about five frames each.
 */
const SHARES: Record<string, number> = { 'JSON-RPC': 0.3, REST: 0.3, GraphQL: 0.15, 'Etherscan /api': 0.1, 'JSON-RPC WebSocket': 0.02, 'GraphQL WebSocket': 0.02 }
/** Requests per interface before the RSS baseline: JIT, pools and caches warm up first. */
const WARMUP_RUNS = 200
const MS_PER_S = 1000

type Settings = { requests: number, durationS: number, seed: number, streams: number, rssMarginMiB: number, heapMarginMiB: number, chainBlocks: number, chainTransactions: number }

function readSettings (): Settings {
  return {
    requests: readIntKnob('FUZZ_REQUESTS', 100_000),
    durationS: readIntKnob('FUZZ_DURATION_S', 600),
    seed: readIntKnob('FUZZ_SEED', Date.now() % 2 ** 31, 0),
    streams: readIntKnob('FUZZ_STREAMS', 2),
    rssMarginMiB: readIntKnob('FUZZ_RSS_MARGIN_MB', 128),
    heapMarginMiB: readIntKnob('FUZZ_HEAP_MARGIN_MB', 64),
    chainBlocks: readIntKnob('FUZZ_CHAIN_BLOCKS', 100),
    chainTransactions: readIntKnob('FUZZ_CHAIN_TRANSACTIONS', 1000)
  }
}

async function setUp (s: Settings, cleanups: Cleanups) {
  console.error(`fuzz: seed ${s.seed}; up to ${s.requests} requests or ${s.durationS} s; starting a gateway on a ${s.chainBlocks}-block chain`)
  const chain = await prepareProofChain(cleanups, { blocks: s.chainBlocks, transactions: s.chainTransactions, prefix: 'fuzz' })
  const gateway = await startIndexedGateway(cleanups, chain.env, chain.info.head, { nodeArgs: GC_ON_SIGNAL_NODE_ARGS })
  const client = createHttpClient(gateway.url, s.streams * Object.keys(SHARES).length + 2)
  cleanups.teardown(client.close)
  const openapi = JSON.parse((await client.send({ method: 'GET', path: '/api-docs/json' })).text)
  const routes = restRoutes(openapi)
  const known = await harvestKnown(client, chain.info.tokens)
  const schema = await readSchema(client)
  const targets: Array<FuzzTarget<any, any>> = [
    createJsonRpcTarget(known),
    createRestTarget(known, routes),
    createGraphqlTarget(known, schema),
    createEtherscanTarget(known),
    createJsonRpcWsTarget(gateway.url, known),
    createGraphqlWsTarget(gateway.url, known, schema)
  ]
  console.error(`fuzz: ${routes.length} REST routes from /api-docs/json, ${known.cursors.length} real cursors`)
  return { gateway, client, targets, routes: routes.length }
}

async function fuzz (s: Settings, { gateway, client, targets, routes }: Awaited<ReturnType<typeof setUp>>): Promise<number> {
  const startedAt = Date.now()
  const deadline = startedAt + s.durationS * MS_PER_S
  const warmup = await Promise.all(targets.map(async (target) => await runTarget(target, client, { runs: WARMUP_RUNS, deadline, seed: s.seed, streams: 1 })))
  const memoryStart = await readMemoryAfterGc(gateway.pid, gateway.lines)
  const results = await Promise.all(targets.map(async (target, i) => merge(warmup[i]!, await runTarget(target, client, {
    runs: Math.max(1, Math.round(s.requests * SHARES[target.name]! - WARMUP_RUNS)), deadline, seed: s.seed + 1000, streams: s.streams
  }))))
  const elapsedS = (Date.now() - startedAt) / MS_PER_S
  // Keep-alive sockets closed first: they hold buffers in the gateway.
  await client.close()
  const alive = await isGatewayAlive(gateway)
  const health = alive ? await gateway.health().catch(() => ({ status: 0 })) : { status: 0 }
  const memoryEnd = alive ? await readMemoryAfterGc(gateway.pid, gateway.lines) : undefined
  const errorLogs = gateway.lines.filter((l) => typeof l.level === 'number' && l.level >= 50)
  return report(s, { results, elapsedS, alive, healthStatus: health.status, memoryStart, memoryEnd, errorLogs: errorLogs.length, firstErrorLog: errorLogs[0], routes })
}

type Figures = {
  results: TargetResult[]
  elapsedS: number
  alive: boolean
  healthStatus: number
  memoryStart: MemoryAfterGc
  memoryEnd: MemoryAfterGc | undefined
  errorLogs: number
  firstErrorLog: unknown
  routes: number
}

function report (s: Settings, f: Figures): number {
  const total = f.results.reduce((n, r) => n + r.requests, 0)
  console.log(`\nfuzz: ${total} requests in ${f.elapsedS.toFixed(0)} s (${(total / f.elapsedS).toFixed(0)}/s), seed ${s.seed}, ${s.streams} streams per interface, ${f.routes} REST routes\n`)
  printTable(['interface', 'requests', 'sessions', '2xx', '4xx', '5xx', 'no answer', 'reset (>1 MiB)', 'verdict'], f.results.map((r) => [
    r.name, String(r.requests), r.byClass.ws === undefined ? '-' : String(r.byClass.ws), String(r.byClass['2xx'] ?? 0), String(r.byClass['4xx'] ?? 0), String(r.byClass['5xx'] ?? 0),
    String(r.transportErrors), String(r.resets), r.failures.length === 0 ? 'PASS' : 'FAIL'
  ]))
  const checks: Array<[string, string, boolean]> = [
    ['gateway process alive', f.alive ? 'yes' : 'no', f.alive],
    ['/health at the end', `HTTP ${f.healthStatus}`, f.healthStatus === 200],
    ...memoryChecks(f.memoryStart, f.memoryEnd, { rssMiB: s.rssMarginMiB, heapMiB: s.heapMarginMiB }),
    ['error lines the gateway logged', String(f.errorLogs), f.errorLogs === 0]
  ]
  console.log('')
  printTable(['check', 'figure', 'verdict'], checks.map(([name, figure, pass]) => [name, figure, pass ? 'PASS' : 'FAIL']))
  if (total < s.requests) console.log(`\n(${total} of FUZZ_REQUESTS=${s.requests}: stopped by FUZZ_DURATION_S=${s.durationS})`)
  for (const r of f.results) {
    for (const failure of r.failures) console.log(`\n${r.name}: FAILED\n${failure}`)
  }
  if (f.firstErrorLog !== undefined) console.log(`\nfirst error the gateway logged: ${JSON.stringify(f.firstErrorLog).slice(0, 2000)}`)
  const pass = f.results.every((r) => r.failures.length === 0) && checks.every(([, , ok]) => ok)
  console.log(`\nfuzz: ${pass ? 'PASS' : 'FAIL'}`)
  return pass ? 0 : EXIT_FAILED
}

function merge (a: TargetResult, b: TargetResult): TargetResult {
  const byClass = { ...a.byClass }
  for (const [k, v] of Object.entries(b.byClass)) byClass[k] = (byClass[k] ?? 0) + v
  return { name: a.name, requests: a.requests + b.requests, byClass, transportErrors: a.transportErrors + b.transportErrors, resets: a.resets + b.resets, failures: [...a.failures, ...b.failures] }
}

process.exit(await runProofSuite({ name: 'fuzz', readSettings, setUp, run: fuzz }))
