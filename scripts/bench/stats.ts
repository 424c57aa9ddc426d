// `npm run bench:stats`: what the Stats API costs on a big index, on
// bench:rest's database of 1,000,000 transactions (filled once through the
// store stage, which keeps the daily sums as the indexer does; then reused:
// rest/fill.ts). Three parts:
// - throughput at 32 connections (autocannon, in its own process) of
//   /stats/api/v1/counters, /stats/api/v1/pages/main and a year of daily
//   newTxns points, each beside /api/v2/config/backend-version (a route that
//   reads nothing: the floor of this server and machine) in the same round;
//   a stats route's figure is its throughput over the floor's, median of the
//   rounds;
// - the incremental update: what the daily sums add to the commit of a block
//   of 200 transactions (addDailyStats on blocks it has not counted, in
//   transactions rolled back: measureUpdate);
// - a full `ops stats rebuild` (rebuildAndCompareDailyStats).
// Knobs: BENCH_DURATION_S (10), BENCH_ROUNDS (3), BENCH_BLOCKS (100,000; fewer
// for a loaded machine, in a database of their own), BENCH_PARTS (routes,
// update,rebuild: the parts to run). Exit codes: 0 report
// printed (targets met or not), 1 setup failed, 2 some responses failed.
import { cpus, loadavg } from 'node:os'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { loadConfig } from '../../core/config.ts'
import type { Database } from '../../core/db/index.ts'
import type { Knex } from 'knex'
import { createLatestBalances, type LatestBalances } from '../../core/indexer/latest-balances.ts'
import { deleteBlocksAbove, storeBlocks } from '../../core/indexer/store.ts'
import type { BlockRows, Hex } from '../../core/indexer/types.ts'
import { createLogger } from '../../core/logger.ts'
import { addDailyStats, rebuildAndCompareDailyStats, takeOutDailyStats } from '../../core/stats/daily-stats.ts'
import stats from '../../plugins/stats/index.ts'
import { restV2 } from '../../plugins/rest/index.ts'
import { measureInTurns, startLoadGenerator, type LoadGenerator, type LoadJob, type LoadResult } from './load-generator.ts'
import { printTable } from './report.ts'
import { median, readInt } from './figures.ts'
import { openBenchDatabase } from './rest/fill.ts'
import { DEFAULT_SHAPE, generateBlock, type ChainShape } from './rest/generate.ts'
import { decorateDatabase } from './rest/server.ts'
import { registerReadStandIns } from '../lib/stand-ins.ts'

const CONNECTIONS = 32
const WARMUP_S = 2
const SAMPLE_EVERY = 100
const UPDATE_TRANSACTIONS = 200
const UPDATE_REPEATS = 21
const YEAR_DAYS = 365
const DAY_MS = 86_400_000
const TARGETS = { minRatio: 0.5, maxUpdateMs: 5 }
const GZIP = { 'accept-encoding': 'gzip, deflate, br' }
const EXIT_SETUP_FAILED = 1
const EXIT_BAD_RESPONSES = 2

type Route = { name: string, path: string, headers?: Record<string, string> }
type RouteFigures = Route & { rounds: LoadResult[], ratios: number[], reqPerS: number, ratio: number, p99Ms: number }

/** The REST routes and the Stats API on one Fastify over the benchmark's database, as buildApp mounts them. */
async function startServer (database: Database): Promise<{ app: FastifyInstance, url: string }> {
  const app = Fastify({ logger: false })
  decorateDatabase(app, database)
  await app.register(fp(async () => {}, { name: 'db' }))
  await registerReadStandIns(app)
  await app.register(restV2, { prefix: '/api/v2' })
  await app.register(stats, { coinSymbol: 'ETH' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  return { app, url: `http://127.0.0.1:${port}` }
}

/** The floor first, then the stats routes; a year of daily points from the first indexed day. */
async function routes (database: Database): Promise<Route[]> {
  const { rows } = await database.knex.raw('select to_char(min(day), \'YYYY-MM-DD\') as first from stats_daily')
  const first = rows[0].first as string
  const last = new Date(Date.parse(first) + (YEAR_DAYS - 1) * DAY_MS).toISOString().slice(0, 10)
  return [
    { name: 'floor: /api/v2/config/backend-version', path: '/api/v2/config/backend-version' },
    { name: '/stats/api/v1/counters', path: '/stats/api/v1/counters' },
    { name: '/stats/api/v1/pages/main', path: '/stats/api/v1/pages/main' },
    { name: `/stats/api/v1/lines/newTxns, ${YEAR_DAYS} days`, path: `/stats/api/v1/lines/newTxns?from=${first}&to=${last}&resolution=DAY` },
    // As browsers ask for it: the answer gzipped (about a tenth of the bytes).
    { name: `/stats/api/v1/lines/newTxns, ${YEAR_DAYS} days, gzip`, path: `/stats/api/v1/lines/newTxns?from=${first}&to=${last}&resolution=DAY`, headers: GZIP }
  ]
}

/**
 * Every route each round: each warmed, then all measured in slices taken in
 * turns (measureInTurns), so that a route and the floor it is held to see
 * the machine alike; a route's ratio is over the same round's floor.
 */
async function measureRoutes (load: LoadGenerator, url: string, list: Route[], rounds: number, durationS: number): Promise<RouteFigures[]> {
  const results = list.map(() => [] as LoadResult[])
  const job = (route: Route): LoadJob => ({ url: url + route.path, headers: route.headers, connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY, durationS: WARMUP_S })
  for (let round = 1; round <= rounds; round++) {
    console.error(`round ${round} of ${rounds}: ${list.length} routes warmed (${WARMUP_S} s each), then ${durationS} s each in slices taken in turns`)
    for (const route of list) await load.run(job(route))
    const measured = await measureInTurns(list, durationS, async (route, sliceS) => await load.run({ ...job(route), durationS: sliceS }))
    for (const [i, result] of measured.entries()) results[i]!.push(result)
  }
  const floor = results[0]!
  return list.map((route, i) => {
    const runs = results[i]!
    const ratios = runs.map((r, round) => r.reqPerS / floor[round]!.reqPerS)
    return { ...route, rounds: runs, ratios, reqPerS: median(runs.map((r) => r.reqPerS)), ratio: median(ratios), p99Ms: median(runs.map((r) => r.p99Ms)) }
  })
}

type UpdateTimes = { storeMs: number[], updateMs: number[], coldUpdateMs: number[] }

/** The balances `latest` holds for a block's addresses: what the store passes the daily sums (its cache of latest balances). */
function knownBefore (block: BlockRows, latest: LatestBalances): Map<Hex, string> {
  const known = new Map<Hex, string>()
  for (const { address } of block.state.coinBalances) {
    const value = latest.get(address)
    if (value !== undefined) known.set(address, value)
  }
  return known
}

/** Adds the block's share in a transaction that is timed and rolled back. */
async function timeAdd (knex: Knex, number: number, known: ReadonlyMap<Hex, string>): Promise<number> {
  const rollback = new Error('rolled back on purpose')
  let ms = 0
  await knex.transaction(async (trx) => {
    const t0 = performance.now()
    await addDailyStats(trx, number, number, known)
    ms = performance.now() - t0
    throw rollback
  }).catch((err: unknown) => { if (err !== rollback) throw err })
  return ms
}

/**
 * Blocks of 200 transactions stored on top one after another (each whole
 * commit timed), and for each what the daily sums add to that commit: its
 * share taken out again (committed), then added in transactions timed and
 * rolled back, then added for good. Each sample is a block the sums have
 * not seen, as in the indexer's commit (its senders new that day, its
 * addresses probed); adding one block's share again and again would time
 * a statement that finds every sender already kept. The blocks are deleted
 * afterwards, so the database keeps the shape it is reused by.
 *
 * The indexer's writer keeps the latest balance of the addresses it stored
 * lately (core/indexer/latest-balances.ts) and the store hands them to the
 * daily sums: timed with that cache holding every address (updateMs, the
 * writer after following the chain a while) and empty (coldUpdateMs, its
 * first batch), in turns which goes first.
 */
async function measureUpdate (database: Database, shape: ChainShape): Promise<UpdateTimes> {
  const knex = database.knex
  const times: UpdateTimes = { storeMs: [], updateMs: [], coldUpdateMs: [] }
  const latest = createLatestBalances()
  const { rows } = await knex.raw<{ rows: Array<{ address: string, value: string }> }>(
    "select '0x' || encode(hash, 'hex') as address, coin_balance::text as value from addresses")
  latest.record(rows.map((r) => ({ address: r.address as Hex, block_number: shape.blocks, value: r.value })))
  try {
    for (let i = 1; i <= UPDATE_REPEATS; i++) {
      const number = shape.blocks + i
      const block = generateBlock(number, { ...shape, transactionsPerBlock: UPDATE_TRANSACTIONS })
      const known = knownBefore(block, latest)
      const started = performance.now()
      await storeBlocks(knex, [block], latest)
      times.storeMs.push(performance.now() - started)
      await knex.transaction(async (trx) => { await takeOutDailyStats(trx, number) })
      if (i % 2 === 0) times.coldUpdateMs.push(await timeAdd(knex, number, new Map()))
      times.updateMs.push(await timeAdd(knex, number, known))
      if (i % 2 === 1) times.coldUpdateMs.push(await timeAdd(knex, number, new Map()))
      await knex.transaction(async (trx) => { await addDailyStats(trx, number, number, known) })
    }
  } finally {
    await deleteBlocksAbove(knex, shape.blocks)
  }
  return times
}

async function measureRebuild (database: Database): Promise<{ ms: number, days: number, differences: number }> {
  const started = performance.now()
  const { days, differences } = await rebuildAndCompareDailyStats(database.knex)
  return { ms: performance.now() - started, days, differences: differences.length }
}

const PARTS = ['routes', 'update', 'rebuild'] as const
type Part = typeof PARTS[number]

function readParts (): Set<Part> {
  const raw = process.env.BENCH_PARTS
  if (raw === undefined || raw === '') return new Set(PARTS)
  const parts = raw.split(',').map((p) => p.trim())
  const unknown = parts.filter((p) => !(PARTS as readonly string[]).includes(p))
  if (unknown.length > 0) throw new Error(`BENCH_PARTS takes ${PARTS.join(', ')}, not ${unknown.join(', ')}`)
  return new Set(parts as Part[])
}

type Report = {
  shape: ChainShape
  figures: RouteFigures[]
  update: UpdateTimes | undefined
  rebuild: { ms: number, days: number, differences: number } | undefined
  settings: { durationS: number, rounds: number, filled: string, fillS: number, loadBefore: number, loadAfter: number }
}

function report ({ shape, figures, update, rebuild, settings }: Report): void {
  const ms = (v: number): string => `${v.toFixed(2)} ms`
  const mark = (pass: boolean): string => pass ? 'PASS' : 'FAIL'
  const updateMedian = update === undefined ? undefined : median(update.updateMs)
  console.log(`\nStats API: ${CONNECTIONS} connections, ${settings.rounds} rounds of ${settings.durationS} s per route after ${WARMUP_S} s warm-ups, ${cpus().length} CPUs`)
  console.log(`database: ${shape.blocks + 1} blocks, ${shape.blocks * shape.transactionsPerBlock} transactions (${settings.filled === 'now' ? `filled now in ${settings.fillS.toFixed(0)} s` : 'reused'}); ` +
    `load average ${settings.loadBefore.toFixed(1)} before, ${settings.loadAfter.toFixed(1)} after\n`)
  if (figures.length > 0) {
    printTable(['route', 'req/s (median)', 'p99 (median)', 'over the floor (median)', 'per round'],
      figures.map((f) => [f.name, f.reqPerS.toFixed(0), ms(f.p99Ms), f.ratio.toFixed(2), f.ratios.map((r) => r.toFixed(2)).join(' / ')]))
  }
  if (update !== undefined) {
    console.log(`\nincremental update of a ${UPDATE_TRANSACTIONS}-transaction block, the writer's balance cache warm: ${ms(updateMedian!)} median of ${update.updateMs.length} ` +
      `(${ms(Math.min(...update.updateMs))} to ${ms(Math.max(...update.updateMs))}); cold: ${ms(median(update.coldUpdateMs))} ` +
      `(${ms(Math.min(...update.coldUpdateMs))} to ${ms(Math.max(...update.coldUpdateMs))}); the whole commit of such a block ${ms(median(update.storeMs))} (median)`)
  }
  if (rebuild !== undefined) console.log(`full stats rebuild: ${(rebuild.ms / 1000).toFixed(1)} s for ${rebuild.days} days, ${rebuild.differences} differences from the incremental figures`)
  console.log(`\nTargets: each stats route >= ${TARGETS.minRatio}x the floor's throughput; the update <= ${TARGETS.maxUpdateMs} ms`)
  for (const f of figures.slice(1)) console.log(`${mark(f.ratio >= TARGETS.minRatio)} ${f.name}: ${f.ratio.toFixed(2)}`)
  if (updateMedian !== undefined) console.log(`${mark(updateMedian <= TARGETS.maxUpdateMs)} update: ${ms(updateMedian)}`)
  console.log('')
  console.log(JSON.stringify({ ...settings, shape, connections: CONNECTIONS, targets: TARGETS, figures, update: update === undefined ? undefined : { ...update, medianMs: updateMedian }, rebuild }))
}

async function main (): Promise<number> {
  const log = createLogger({ level: 'warn' })
  let durationS: number
  let rounds: number
  let parts: Set<Part>
  let shape: ChainShape
  let bench: Awaited<ReturnType<typeof openBenchDatabase>>
  let server: Awaited<ReturnType<typeof startServer>>
  try {
    durationS = readInt('BENCH_DURATION_S', 10)
    rounds = readInt('BENCH_ROUNDS', 3)
    parts = readParts()
    shape = { ...DEFAULT_SHAPE, blocks: readInt('BENCH_BLOCKS', DEFAULT_SHAPE.blocks) }
    const { cacheDir } = loadConfig({ ...process.env, GETH_RPC_URL: '', DATA_DIR: '.' }).geth
    console.error(`opening the benchmark database (${shape.blocks} blocks x ${shape.transactionsPerBlock} transactions; filled once, then reused)`)
    bench = await openBenchDatabase(shape, cacheDir, log)
    server = await startServer(bench.database)
  } catch (err) {
    console.error(`setup failed: ${(err as Error).stack ?? String(err)}`)
    return EXIT_SETUP_FAILED
  }
  const load = startLoadGenerator()
  try {
    const loadBefore = loadavg()[0]!
    const figures = parts.has('routes') ? await measureRoutes(load, server.url, await routes(bench.database), rounds, durationS) : []
    if (parts.has('update')) console.error(`timing the incremental update of a ${UPDATE_TRANSACTIONS}-transaction block`)
    const update = parts.has('update') ? await measureUpdate(bench.database, shape) : undefined
    if (parts.has('rebuild')) console.error('timing a full stats rebuild')
    const rebuild = parts.has('rebuild') ? await measureRebuild(bench.database) : undefined
    report({ shape, figures, update, rebuild, settings: { durationS, rounds, filled: bench.filled, fillS: bench.fillS, loadBefore, loadAfter: loadavg()[0]! } })
    const bad = figures.some((f) => f.rounds.some((r) => r.non200 + r.errors + r.sampleFailures > 0))
    return bad || (rebuild?.differences ?? 0) > 0 ? EXIT_BAD_RESPONSES : 0
  } catch (err) {
    console.error(`benchmark failed: ${(err as Error).stack ?? String(err)}`)
    return EXIT_SETUP_FAILED
  } finally {
    await load.close()
    await server.app.close()
    await bench.close()
  }
}

process.exit(await main())
