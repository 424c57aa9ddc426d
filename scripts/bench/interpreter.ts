// `npm run bench:interpreter`: what a transaction's summary
// (/api/v2/transactions/{hash}/summary, core/interpreter) costs beside the
// transaction itself (/api/v2/transactions/{hash}), on the real app (Geth,
// indexer, PostgreSQL; gateway.ts) with real contracts: TinyRouter.airdrop
// moves TestToken to 20 recipients in one transaction, 20 token transfers and
// 20 logs. At 32 connections (autocannon, in its own process), each round:
// - the transaction's detail, asked again and again: the floor of the cached
//   summary (both answered from the head-keyed HTTP cache after the first);
// - its summary, cached;
// - the details of BENCH_TRANSACTIONS distinct airdrops (fresh recipients,
//   distinct amounts), each asked once with the HTTP cache emptied before:
//   the floor of the uncached summaries, every answer read from the index;
// - their summaries, uncached: the HTTP cache and the summaries' table are
//   emptied before (setup, not timed), then each is asked for once, so every
//   answer goes the whole way: miss, read the transaction's rows, decode its
//   logs, name its addresses, summarize, write the row. The rows written are
//   counted.
// A figure is its throughput over the same round's floor, median of the
// rounds. Knobs: BENCH_DURATION_S (10), BENCH_ROUNDS (3), BENCH_TRANSACTIONS
// (1,500). Exit codes: 0 report printed (targets met or not), 1 setup failed,
// 2 some responses failed.
import { cpus, loadavg } from 'node:os'
import { randomBytes } from 'node:crypto'
import { MaxUint256 } from 'ethers'
import type { BenchGateway } from './gateway.ts'
import { originOf, runGatewayBenchmark, runMeasuringCpu, type GatewayLoadResult } from './gateway-run.ts'
import { createBenchSender, readTestContract, type BenchSender } from './chain.ts'
import type { LoadGenerator, LoadJob } from './load-generator.ts'
import { printTable } from './report.ts'
import { median, readInt } from './figures.ts'

const CONNECTIONS = 32
const WARMUP_S = 2
const SAMPLE_EVERY = 50
const TRANSFERS = 20
const SEND_CHUNK = 500
const TOKEN_SUPPLY = 10n ** 30n
const TARGETS = { cached: 0.8, uncached: 0.3 }

type Part = 'detail' | 'cached' | 'details' | 'uncached'
type Figures = { name: string, rounds: GatewayLoadResult[], ratios: number[], reqPerS: number, ratio: number, p99Ms: number, cpuMs: number }

/** The token, the router, the approval, then `count` airdrops of 20 transfers each; their hashes. */
async function makeAirdrops (sender: BenchSender, count: number): Promise<string[]> {
  const token = await readTestContract('TestToken', 'TestToken')
  const router = await readTestContract('TinyRouter', 'TinyRouter')
  const tokenAt = await sender.deploy(token.bytecode + token.abi.encodeDeploy(['Bench Token', 'BT', TOKEN_SUPPLY]).slice(2))
  const routerAt = await sender.deploy(router.bytecode)
  await sender.flush([tokenAt.raw, routerAt.raw, await sender.call(tokenAt.address, token.abi.encodeFunctionData('approve', [routerAt.address, MaxUint256]))])
  const hashes: string[] = []
  for (let start = 0; start < count; start += SEND_CHUNK) {
    const raws: string[] = []
    for (let i = start; i < Math.min(count, start + SEND_CHUNK); i++) {
      const recipients = Array.from({ length: TRANSFERS }, () => '0x' + randomBytes(20).toString('hex'))
      raws.push(await sender.call(routerAt.address, router.abi.encodeFunctionData('airdrop', [tokenAt.address, recipients, 1000n + BigInt(i)])))
    }
    hashes.push(...await sender.flush(raws))
    console.error(`${hashes.length} of ${count} airdrops sealed and indexed`)
  }
  return hashes
}

/** The setup did what the benchmark says: 20 transfers and 20 logs, and a summary that reads them. */
async function checkShape (gateway: BenchGateway, hash: string): Promise<void> {
  const { rows } = await gateway.app.db.knex.raw(`select (select count(*) from logs where transaction_hash = ?)::int as logs,
    (select count(*) from token_transfers where transaction_hash = ?)::int as transfers`, [Buffer.from(hash.slice(2), 'hex'), Buffer.from(hash.slice(2), 'hex')])
  if (rows[0].logs !== TRANSFERS || rows[0].transfers !== TRANSFERS) throw new Error(`the airdrop ${hash} has ${rows[0].logs} logs and ${rows[0].transfers} transfers, not ${TRANSFERS}`)
  const answer = await gateway.app.inject({ url: `/api/v2/transactions/${hash}/summary` })
  const summaries = answer.json()?.data?.summaries as unknown[] | undefined
  if (answer.statusCode !== 200 || summaries === undefined || summaries.length === 0) throw new Error(`the airdrop's summary: HTTP ${answer.statusCode} ${answer.body.slice(0, 200)}`)
  console.error(`its summary: ${JSON.stringify(summaries.map((s) => (s as { summary_template: string }).summary_template))}`)
}

async function countCached (gateway: BenchGateway): Promise<number> {
  const { rows } = await gateway.app.db.knex.raw('select count(*)::int as n from transaction_interpretations')
  return rows[0].n
}

type RoundPlan = { origin: string, hashes: string[], durationS: number }

async function measureRound (load: LoadGenerator, gateway: BenchGateway, plan: RoundPlan): Promise<{ results: Record<Part, GatewayLoadResult>, written: number }> {
  const [first] = plan.hashes
  const timed = async (job: Omit<LoadJob, 'connections' | 'sampleEvery' | 'durationS'>): Promise<GatewayLoadResult> => {
    await load.run({ ...job, connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY, durationS: WARMUP_S })
    return await runMeasuringCpu(load, { ...job, connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY, durationS: plan.durationS })
  }
  const detail = await timed({ url: `${plan.origin}/api/v2/transactions/${first}` })
  await gateway.app.inject({ url: `/api/v2/transactions/${first}/summary` })
  const cached = await timed({ url: `${plan.origin}/api/v2/transactions/${first}/summary` })
  // Each of the round's transactions once, from nothing kept (setup, not timed).
  const once = async (suffix: string): Promise<GatewayLoadResult> => {
    gateway.app.httpCache?.clear()
    return await runMeasuringCpu(load, {
      url: plan.origin,
      paths: plan.hashes.map((h) => `/api/v2/transactions/${h}${suffix}`),
      amount: plan.hashes.length,
      connections: CONNECTIONS,
      sampleEvery: SAMPLE_EVERY,
      durationS: plan.durationS
    })
  }
  const details = await once('')
  await gateway.app.db.knex.raw('truncate transaction_interpretations')
  const uncached = await once('/summary')
  return { results: { detail, cached, details, uncached }, written: await countCached(gateway) }
}

function figuresOf (name: string, runs: GatewayLoadResult[], floor: GatewayLoadResult[]): Figures {
  const ratios = runs.map((r, i) => r.reqPerS / floor[i]!.reqPerS)
  return { name, rounds: runs, ratios, reqPerS: median(runs.map((r) => r.reqPerS)), ratio: median(ratios), p99Ms: median(runs.map((r) => r.p99Ms)), cpuMs: median(runs.map((r) => r.gatewayCpuMsPerRequest)) }
}

type Settings = { durationS: number, rounds: number, transactions: number, loadBefore: number, loadAfter: number, written: number[], setupS: number }

function report (figures: Figures[], settings: Settings): void {
  const mark = (pass: boolean): string => pass ? 'PASS' : 'FAIL'
  console.log(`\nInterpreter: ${CONNECTIONS} connections, ${settings.rounds} rounds (${WARMUP_S} s warm-up + ${settings.durationS} s; uncached: ${settings.transactions} distinct transactions once each), ${cpus().length} CPUs`)
  console.log(`transactions of ${TRANSFERS} token transfers and ${TRANSFERS} logs; set up in ${settings.setupS.toFixed(0)} s; ` +
    `load average ${settings.loadBefore.toFixed(1)} before, ${settings.loadAfter.toFixed(1)} after; summaries written by the uncached rounds: ${settings.written.join(' / ')}\n`)
  printTable(['route', 'req/s (median)', 'p99 (median)', 'gateway CPU / request (median)', 'over its floor (median)', 'per round'],
    figures.map((f) => [f.name, f.reqPerS.toFixed(0), `${f.p99Ms.toFixed(2)} ms`, `${f.cpuMs.toFixed(2)} ms`, f.ratio.toFixed(2), f.ratios.map((r) => r.toFixed(2)).join(' / ')]))
  console.log(`\nTargets: cached summary >= ${TARGETS.cached}x the detail's throughput, uncached >= ${TARGETS.uncached}x, each over the detail asked the same way`)
  console.log(`${mark(figures[1]!.ratio >= TARGETS.cached)} cached: ${figures[1]!.ratio.toFixed(2)}`)
  console.log(`${mark(figures[3]!.ratio >= TARGETS.uncached)} uncached: ${figures[3]!.ratio.toFixed(2)}\n`)
  console.log(JSON.stringify({ ...settings, connections: CONNECTIONS, transfers: TRANSFERS, targets: TARGETS, figures }))
}

const durationS = readInt('BENCH_DURATION_S', 10)
const rounds = readInt('BENCH_ROUNDS', 3)
const transactions = readInt('BENCH_TRANSACTIONS', 1500)
const started = performance.now()

process.exit(await runGatewayBenchmark(async (gateway) => {
  const hashes = await makeAirdrops(createBenchSender(gateway.app.geth.rpc, gateway.app.db, gateway.senderKey), transactions)
  await checkShape(gateway, hashes[0]!)
  return hashes
}, async (gateway, hashes, load) => {
  const setupS = (performance.now() - started) / 1000
  const loadBefore = loadavg()[0]!
  const runs: Array<Record<Part, GatewayLoadResult>> = []
  const written: number[] = []
  for (let round = 1; round <= rounds; round++) {
    console.error(`round ${round} of ${rounds}: detail, cached summary, ${transactions} details and uncached summaries`)
    const { results, written: rows } = await measureRound(load, gateway, { origin: originOf(gateway), hashes, durationS })
    runs.push(results)
    written.push(rows)
  }
  const [floor, floorOnce] = [runs.map((r) => r.detail), runs.map((r) => r.details)]
  const figures = [
    figuresOf('/api/v2/transactions/{hash}', floor, floor),
    figuresOf('/api/v2/transactions/{hash}/summary, cached', runs.map((r) => r.cached), floor),
    figuresOf(`/api/v2/transactions/{hash}, ${transactions} once each`, floorOnce, floorOnce),
    figuresOf(`/api/v2/transactions/{hash}/summary, ${transactions} once each, uncached`, runs.map((r) => r.uncached), floorOnce)
  ]
  report(figures, { durationS, rounds, transactions, loadBefore, loadAfter: loadavg()[0]!, written, setupS })
  // A round that wrote fewer summaries than it asked for did not go the uncached way each time.
  return { bad: figures.some((f) => f.rounds.some((r) => r.non200 + r.errors + r.sampleFailures > 0)) || written.some((n) => n !== transactions) }
}))
