// `npm run bench:indexer`: how fast the indexer backfills and follows the head.
//  (a) floor: only fetching blocks 0..head with fetchBlockBundles, with the
//      indexer's batch size and batches in flight (read from its source);
//      run twice, the warm second pass is the one compared against;
//  (b) backfill: createIndexer into an empty database, timed to the commit of
//      the head; its RPC is then replayed alone (the node's share of it);
//  (d) the same backfill inside the full app (buildApp), with a modest request
//      rate at GET /health and eth_chainId: does indexing starve requests?
//  (c) head lag on a fresh chain with clique period 1 and a trickle of load.
// The chain (scripts/bench/gen-chain.ts) is generated once into the Geth cache dir
// and copied to a temporary directory per run: Geth writes to its data dir on
// every start and stop, and a copy keeps the cached one exactly as generated.
// Knobs (environment): BENCH_BLOCKS, BENCH_TRANSACTIONS (chain size),
// BENCH_LAG_DURATION_S (0 skips c), BENCH_LAG_TPS, BENCH_API (0 skips d),
// BENCH_API_CONNECTIONS, BENCH_API_RATE, BENCH_IDLE_S, BENCH_BACKFILL_TIMEOUT_S,
// BENCH_BATCH_BLOCKS, BENCH_BATCHES_IN_FLIGHT (a and b only), BENCH_ROUNDS
// (3: pairs of a floor and a backfill, the target taking their median ratio;
// the diagnostics below cover the first round only); diagnostics:
// BENCH_CPU_PROFILE=<file>, BENCH_TRACE_SQL=1, BENCH_STAGES=1.
// Exit codes: 0 report printed (targets met or not), 1 setup failed.
import { chmod, cp, mkdtemp, rm } from 'node:fs/promises'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createGethNode } from '../../geth/node.ts'
import { DEFAULT_BLOCKS, DEFAULT_TRANSACTIONS, GENERATED_CLIQUE_PERIOD, ensureBenchChain } from './gen-chain.ts'
import { startCpuMeter } from '../lib/cpu.ts'
import { chainConfig } from './indexer/chain-config.ts'
import { createBenchLogger } from './indexer/log.ts'
import { openDatabaseServer, type DatabaseServer } from './indexer/databases.ts'
import { readIndexerDefaults } from './indexer/defaults.ts'
import { measureFloor } from './indexer/floor.ts'
import { runBackfill } from './indexer/backfill.ts'
import { runApiResponsiveness } from './indexer/api.ts'
import { startApiLoad } from './indexer/api-load.ts'
import { measureHeadLag } from './indexer/head-lag.ts'
import { replayBatches } from './indexer/instrument.ts'
import { measureDecode, replayStore } from './indexer/stages.ts'
import { printJson, printReport, type FloorRun, type IndexerBenchFigures, type Round } from './indexer/report.ts'

const EXIT_SETUP_FAILED = 1
const DECODE_SAMPLE_BLOCKS = 1000
const MS_PER_S = 1000

type Settings = {
  blocks: number
  transactions: number
  lagDurationS: number
  lagTransactionsPerS: number
  api: boolean
  apiConnections: number
  apiRatePerS: number
  idleS: number
  backfillTimeoutS: number
  rounds: number
  batchBlocks: number | undefined
  batchesInFlight: number | undefined
  cpuProfile: string | undefined
  traceSql: boolean
  stages: boolean
}

/** Every knob, with its default. */
function readSettings (env = process.env): Settings {
  const int = (name: string, fallback: number, minimum = 1): number => {
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    const value = Number(raw)
    if (!Number.isInteger(value) || value < minimum) throw new Error(`${name} must be a whole number >= ${minimum}, not ${raw}`)
    return value
  }
  const optional = (name: string): number | undefined => env[name] === undefined || env[name] === '' ? undefined : int(name, 0)
  return {
    blocks: int('BENCH_BLOCKS', DEFAULT_BLOCKS),
    transactions: int('BENCH_TRANSACTIONS', DEFAULT_TRANSACTIONS),
    // 0 skips the head-lag run.
    lagDurationS: int('BENCH_LAG_DURATION_S', 30, 0),
    lagTransactionsPerS: int('BENCH_LAG_TPS', 5),
    // 0 skips the API run (and with it the second backfill).
    api: int('BENCH_API', 1, 0) !== 0,
    apiConnections: int('BENCH_API_CONNECTIONS', 2),
    apiRatePerS: int('BENCH_API_RATE', 50),
    idleS: int('BENCH_IDLE_S', 10),
    backfillTimeoutS: int('BENCH_BACKFILL_TIMEOUT_S', 1200),
    rounds: int('BENCH_ROUNDS', 3),
    // Both unset: the indexer's own defaults, read from its source.
    batchBlocks: optional('BENCH_BATCH_BLOCKS'),
    batchesInFlight: optional('BENCH_BATCHES_IN_FLIGHT'),
    cpuProfile: env.BENCH_CPU_PROFILE === '' ? undefined : env.BENCH_CPU_PROFILE,
    // Diagnostics: time every SQL statement of the backfill (slows it a little).
    traceSql: int('BENCH_TRACE_SQL', 0, 0) !== 0,
    // Diagnostics: decode and store each measured alone (keeps the backfill's rows in memory).
    stages: int('BENCH_STAGES', 0, 0) !== 0
  }
}

type Cleanup = () => Promise<unknown>

async function benchmark (s: Settings, cleanups: Cleanup[]): Promise<IndexerBenchFigures> {
  const defaults = await readIndexerDefaults()
  const batchBlocks = s.batchBlocks ?? defaults.batchBlocks
  const batchesInFlight = s.batchesInFlight ?? defaults.batchesInFlight
  const overridden = s.batchBlocks !== undefined || s.batchesInFlight !== undefined
  const { log } = createBenchLogger()

  const databases: DatabaseServer = await openDatabaseServer()
  cleanups.push(async () => await databases.close())
  const { cacheDir } = chainConfig({ dataDir: '.', cliquePeriod: GENERATED_CLIQUE_PERIOD }).geth
  const chain = await ensureBenchChain({ cacheDir, blocks: s.blocks, transactions: s.transactions })

  const work = await mkdtemp(join(tmpdir(), 'tg-bench-indexer-'))
  cleanups.push(async () => await rm(work, { recursive: true, force: true }))
  // Embedded PostgreSQL (the app without DATABASE_URL) runs as another user and must reach it.
  await chmod(work, 0o755)
  const chainDir = join(work, 'chain')
  console.error(`copying the cached chain from ${chain.dataDir}`)
  const copyStartedAt = performance.now()
  await cp(chain.dataDir, chainDir, { recursive: true })
  const copyS = (performance.now() - copyStartedAt) / MS_PER_S

  const node = await createGethNode({ config: chainConfig({ dataDir: chainDir, cliquePeriod: GENERATED_CLIQUE_PERIOD }), log })
  let nodeStopped: Promise<void> | undefined
  const stopNode = async (): Promise<void> => await (nodeStopped ??= node.stop())
  cleanups.push(stopNode)
  await node.start()
  const head = Number(await node.rpc.call<string>('eth_blockNumber'))
  if (head !== chain.info.head) throw new Error(`the copied chain's head is ${head}, its marker says ${chain.info.head}`)

  const floorRun = async (): Promise<FloorRun> => {
    const stopCpuMeter = await startCpuMeter(node.supervisor?.pid, databases.pid)
    const figures = await measureFloor({ rpc: node.rpc, head, batchBlocks, batchesInFlight })
    return { ...figures, cpu: await stopCpuMeter() }
  }
  await databases.settle()
  console.error(`(a) floor: fetching blocks 0..${head}, ${batchBlocks} per batch, ${batchesInFlight} in flight; twice (Geth's caches cold, then warm)`)
  const floorCold = await floorRun()
  const floor = await floorRun()
  console.error(`    ${seconds(floorCold.ms)} cold, ${seconds(floor.ms)} warm`)

  await databases.settle()
  console.error('(b) backfill: createIndexer into an empty database')
  const backfillInto = async (diagnose: boolean): ReturnType<typeof runBackfill> => {
    const backfillDb = await databases.create('tg_bench_backfill')
    const result = await runBackfill({
      rpc: node.rpc,
      wsUrl: node.wsUrl,
      gethPid: node.supervisor?.pid,
      postgresPid: databases.pid,
      databaseUrl: backfillDb.url,
      head,
      timeoutMs: s.backfillTimeoutS * MS_PER_S,
      ...(overridden ? { batchBlocks, batchesInFlight } : {}),
      ...(diagnose ? { profileFile: s.cpuProfile, traceSql: s.traceSql, keepBatches: s.stages } : {})
    })
    await backfillDb.drop()
    return result
  }
  const { recordedBatches, storedBatches, ...backfill } = await backfillInto(true)
  const rounds: Round[] = [{ floorMs: floor.ms, backfillMs: backfill.ms }]
  while (rounds.length < s.rounds) {
    await databases.settle()
    const floorMs = (await floorRun()).ms
    await databases.settle()
    const backfillMs = (await backfillInto(false)).ms
    rounds.push({ floorMs, backfillMs })
    console.error(`    round ${rounds.length} of ${s.rounds}: floor ${seconds(floorMs)}, backfill ${seconds(backfillMs)}`)
  }
  console.error(`    ${seconds(backfill.ms)}; replaying its ${recordedBatches.length} RPC batches, ${batchesInFlight} at a time`)
  const stopReplayCpu = await startCpuMeter(node.supervisor?.pid, databases.pid)
  const replayMs = await replayBatches(node.rpc, recordedBatches, batchesInFlight)
  const replay = { ms: replayMs, batches: recordedBatches.length, lanes: batchesInFlight, cpu: await stopReplayCpu() }
  let stages
  if (s.stages) {
    console.error(`    stages: decoding blocks 1..${Math.min(head, DECODE_SAMPLE_BLOCKS)} alone, then storing the backfill's ${storedBatches.length} batches again alone`)
    const decode = await measureDecode(node.rpc, head, DECODE_SAMPLE_BLOCKS, batchBlocks)
    const storeDb = await databases.create('tg_bench_store')
    const store = await replayStore(storeDb.url, storedBatches.splice(0))
    await storeDb.drop()
    stages = { decode, store }
  }
  // The app below starts its own Geth on the same directory.
  await stopNode()

  let api
  if (s.api) {
    if (overridden) console.error('note: BENCH_BATCH_* do not reach the app run: buildApp uses the indexer\'s defaults')
    console.error(`(d) API responsiveness: buildApp backfilling with ${s.apiRatePerS} requests/s at each of GET /health and eth_chainId`)
    const load = startApiLoad()
    cleanups.push(async () => await load.close())
    const apiDb = await databases.create('tg_bench_api')
    api = await runApiResponsiveness({
      chainDir,
      databaseUrl: apiDb.url,
      head,
      load,
      connections: s.apiConnections,
      ratePerS: s.apiRatePerS,
      idleS: s.idleS,
      timeoutMs: s.backfillTimeoutS * MS_PER_S
    })
    await load.close()
    await apiDb.drop()
  }

  let lag
  if (s.lagDurationS > 0) {
    console.error(`(c) head lag: a fresh chain with clique period 1, ${s.lagTransactionsPerS} transactions/s for ${s.lagDurationS} s`)
    const lagDb = await databases.create('tg_bench_lag')
    lag = await measureHeadLag({ databaseUrl: lagDb.url, durationS: s.lagDurationS, transactionsPerS: s.lagTransactionsPerS })
    await lagDb.drop()
  }

  return {
    chain: { dataDir: chain.dataDir, head, transactions: chain.info.transactionCount, generated: chain.generated, generationS: chain.info.generationS, copyS },
    settings: {
      batchBlocks,
      batchesInFlight,
      batchSource: overridden ? 'BENCH_BATCH_BLOCKS / BENCH_BATCHES_IN_FLIGHT' : defaults.source,
      database: databases.kind,
      cpus: cpus().length,
      apiConnections: s.apiConnections,
      apiRatePerS: s.apiRatePerS
    },
    floorCold,
    floor,
    replay,
    stages,
    backfill,
    rounds,
    api,
    lag
  }
}

/** Last in, first out: Geth and the app stop before databases are dropped and directories removed. */
async function runCleanups (cleanups: Cleanup[]): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup().catch((err: unknown) => console.error(`cleanup failed: ${(err as Error).message}`))
  }
}

async function main (): Promise<number> {
  const cleanups: Cleanup[] = []
  let closing: Promise<void> | undefined
  const close = async (): Promise<void> => await (closing ??= runCleanups(cleanups))
  let interrupted = false
  const stopOnSignal = (): void => {
    if (interrupted) return
    interrupted = true
    console.error('interrupted; cleaning up')
    close().finally(() => process.exit(EXIT_SETUP_FAILED))
  }
  // `on`, not `once`: execa's exit hook (signal-exit) re-raises a signal that
  // no other listener is left for, which would end us before the clean-up.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.removeAllListeners(signal).on(signal, stopOnSignal)
  try {
    const figures = await benchmark(readSettings(), cleanups)
    printReport(figures)
    printJson(figures)
    return 0
  } catch (err) {
    if (!interrupted) console.error(`benchmark failed: ${(err as Error).stack ?? String(err)}`)
    return EXIT_SETUP_FAILED
  } finally {
    await close()
  }
}

const seconds = (ms: number): string => `${(ms / MS_PER_S).toFixed(1)} s`

// Exits explicitly: whatever is left (pools, timers) must not keep the process alive.
process.exit(await main())
