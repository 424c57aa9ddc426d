// The access layer's cost (plugins/auth, plugins/rate-limit) and the metrics'
// (plugins/metrics): the same calls through gateway instances that differ only
// in them, on the bench's chain and database: limits off and no key, then
// limits on with a premium key (in the URL, /rpc/<key>) counted in memory, and
// in Redis when one answers; and limits and metrics both off ('bare'). Rounds
// alternate the instances so that each sees the machine in the same state;
// a ratio is the median over rounds of one instance's req/s over another's.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import { loadConfig } from '../../core/config.ts'
import { createLogger } from '../../core/logger.ts'
import { buildApp } from '../../plugins/index.ts'
import { createApiKey } from '../../core/api-keys/store.ts'
import type { BenchGateway } from './gateway.ts'
import { measureInTurns, type LoadResult } from './load-generator.ts'
import { printTable } from './report.ts'
import { median } from './figures.ts'

export const ACCESS_ROUNDS = 3
/** The access layer may cost at most this share of throughput. */
export const ACCESS_MAX_COST = 0.10
/** Recording metrics may cost at most this share of throughput. */
export const METRICS_MAX_COST = 0.03
const REDIS_READY_WAIT_MS = 2000
/** High enough that the bench never reaches it: what is measured is the counting, not refusals. */
export const BENCH_KEY_LIMIT_PER_MIN = 2_000_000_000
/** Where the Redis-backed instances count: REDIS_URL, else the machine's. */
export const benchRedisUrl = (): string => process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

export type AccessVariant = 'off' | 'memory' | 'redis' | 'bare'
export type AccessInstance = { variant: AccessVariant, url: string }
export type AccessInstances = { instances: AccessInstance[], skipped: string[], close (): Promise<void> }

async function startInstance (gateway: BenchGateway, variant: AccessVariant, redisUrl: string, closers: Array<() => Promise<void>>): Promise<FastifyInstance> {
  const dataDir = await mkdtemp(join(tmpdir(), `tg-bench-access-${variant}-`))
  closers.push(async () => await rm(dataDir, { recursive: true, force: true }))
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: gateway.app.db.url,
    GETH_RPC_URL: gateway.gethUrl,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_ENABLED: String(variant === 'memory' || variant === 'redis'),
    METRICS_ENABLED: String(variant !== 'bare'),
    REDIS_URL: variant === 'redis' ? redisUrl : ''
  })
  const app = await buildApp(config, { logger: createLogger({ level: 'warn' }) })
  closers.push(async () => await app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  return app
}

/** The instances to compare; Redis from REDIS_URL, else the machine's at 127.0.0.1:6379, skipped when it does not answer. */
export async function startAccessInstances (gateway: BenchGateway): Promise<AccessInstances> {
  const closers: Array<() => Promise<void>> = []
  const close = async (): Promise<void> => { for (const closer of closers.reverse()) await closer().catch(() => {}) }
  const redisUrl = benchRedisUrl()
  const { key } = await createApiKey(gateway.app.db.knex, { label: 'bench', tier: 'premium', limitPerMin: BENCH_KEY_LIMIT_PER_MIN })
  const instances: AccessInstance[] = []
  const skipped: string[] = []
  try {
    for (const variant of ['off', 'memory', 'redis', 'bare'] as const) {
      const app = await startInstance(gateway, variant, redisUrl, closers)
      if (variant === 'redis' && !await countsInRedis(app)) { skipped.push(`redis: none answers at ${redisUrl}`); continue }
      const { port } = app.server.address() as { port: number }
      instances.push({ variant, url: variant === 'memory' || variant === 'redis' ? `http://127.0.0.1:${port}/rpc/${key}` : `http://127.0.0.1:${port}/rpc` })
    }
  } catch (err) {
    await close()
    throw err
  }
  return { instances, skipped, close }
}

/** Waits a moment for the instance's Redis connection; false when it never counts there. */
export async function countsInRedis (app: FastifyInstance): Promise<boolean> {
  const deadline = Date.now() + REDIS_READY_WAIT_MS
  while (app.accessBudget.backend() !== 'redis' && Date.now() < deadline) await sleep(50)
  return app.accessBudget.backend() === 'redis'
}

export type AccessRound = Partial<Record<AccessVariant, number>>
export type AccessFigures = {
  method: string
  rounds: AccessRound[]
  medianRatio: Partial<Record<'memory' | 'redis', number>>
  /** Median of req/s with metrics recorded over req/s without ('off' over 'bare'). */
  metricsRatio: number | undefined
  pass: boolean
}

function medianRatioOf (rounds: AccessRound[], over: AccessVariant, under: AccessVariant): number | undefined {
  const ratios = rounds.filter((r) => r[over] !== undefined && r[under] !== undefined).map((r) => r[over]! / r[under]!)
  return ratios.length === 0 ? undefined : median(ratios)
}

/** Ratios of each limited variant's req/s over the unlimited one's, and of the unlimited one's over the bare one's, median over rounds. */
export function accessFigures (method: string, rounds: AccessRound[]): AccessFigures {
  const medianRatio: AccessFigures['medianRatio'] = {}
  for (const variant of ['memory', 'redis'] as const) {
    const ratio = medianRatioOf(rounds, variant, 'off')
    if (ratio !== undefined) medianRatio[variant] = ratio
  }
  const metricsRatio = medianRatioOf(rounds, 'off', 'bare')
  const pass = Object.values(medianRatio).every((ratio) => ratio >= 1 - ACCESS_MAX_COST) && (metricsRatio === undefined || metricsRatio >= 1 - METRICS_MAX_COST)
  return { method, rounds, medianRatio, metricsRatio, pass }
}

const VARIANT_WORDS: Record<AccessVariant, string> = {
  off: 'limits off',
  memory: 'limits on with a premium key, counted in memory',
  redis: 'limits on with a premium key, counted in Redis',
  bare: 'limits off and metrics off'
}

export type AccessMeasure<I> = {
  /** Load to settle connections and JIT before anything is counted. */
  warm (instance: I): Promise<void>
  measure (instance: I, durationS: number): Promise<LoadResult>
}

/**
 * ACCESS_ROUNDS rounds. In each, every instance is warmed, then measured for
 * `durationS` in slices taken in turns (measureInTurns: the same instance in
 * whole runs one after another moved by up to a third within a round). Each
 * round starts with the next instance, so that none is always measured first.
 */
export async function measureAccessRounds<I extends AccessInstance> (what: string, instances: I[], durationS: number, { warm, measure }: AccessMeasure<I>): Promise<AccessRound[]> {
  const rounds: AccessRound[] = []
  for (let round = 1; round <= ACCESS_ROUNDS; round++) {
    const order = instances.map((_, i) => instances[(i + round - 1) % instances.length]!)
    console.error(`access round ${round}/${ACCESS_ROUNDS}: ${what}, ${durationS} s per instance in slices taken in turns (${order.map((i) => i.variant).join(', ')})`)
    for (const instance of order) {
      console.error(`  warming ${instance.variant}: ${VARIANT_WORDS[instance.variant]}`)
      await warm(instance)
    }
    const results = await measureInTurns(order, durationS, async (instance, sliceS) => checked(instance.variant, await measure(instance, sliceS)))
    const measured: AccessRound = {}
    for (const [i, instance] of order.entries()) measured[instance.variant] = results[i]!.reqPerS
    rounds.push(measured)
  }
  return rounds
}

/** A failed response under load stops the benchmark. */
function checked (variant: AccessVariant, m: LoadResult): LoadResult {
  if (m.non200 + m.errors + m.sampleFailures > 0) throw new Error(`access ${variant}: ${m.non200} non-200, ${m.errors} errors, ${m.sampleFailures} bad samples; first: ${m.firstFailure ?? '?'}`)
  return m
}

/** The rounds' req/s and the median ratios against their targets. */
export function printAccessReport ({ figures, skipped }: { figures: AccessFigures, skipped: string[] }, loadAverage?: number): void {
  const variants = (['off', 'memory', 'redis', 'bare'] as const).filter((v) => figures.rounds.some((r) => r[v] !== undefined) || v !== 'bare')
  console.log(`\nAccess layer (API key + rate limit) on ${figures.method}: req/s per round, limits off against on with a premium key\n`)
  printTable(['round', ...variants], figures.rounds.map((r, i) => [String(i + 1), ...variants.map((v) => r[v]?.toFixed(0) ?? 'n/a')]))
  for (const line of skipped) console.log(`skipped ${line}`)
  if (loadAverage !== undefined) console.log(`load average after the rounds: ${loadAverage.toFixed(1)}`)
  console.log(`\nTarget: median ratio >= ${(1 - ACCESS_MAX_COST).toFixed(2)} (the access layer costs at most ${ACCESS_MAX_COST * 100} %)\n`)
  printTable(['counters', 'median ratio'], Object.entries(figures.medianRatio).map(([v, ratio]) => [v, `${ratio >= 1 - ACCESS_MAX_COST ? 'PASS' : 'FAIL'} ${ratio.toFixed(3)}`]))
  if (figures.metricsRatio !== undefined) {
    console.log(`\nMetrics recorded ('off') against not ('bare'): median ratio ${figures.metricsRatio >= 1 - METRICS_MAX_COST ? 'PASS' : 'FAIL'} ${figures.metricsRatio.toFixed(3)} (target >= ${(1 - METRICS_MAX_COST).toFixed(2)})`)
  }
  console.log('')
}
