// The parent's handle on the load generator: one child process (load-worker.ts)
// kept for the whole benchmark, running one job at a time.
import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { median } from './figures.ts'

export type LoadJob = {
  url: string
  /** POST with this JSON body; without one, a GET whose sampled bodies must be JSON. */
  body?: string
  /** Sent with every request (an API key, a GET's Accept-Encoding, say). */
  headers?: Record<string, string>
  /**
   * What a sampled POST answer must hold: a JSON-RPC `result` (the default), a
   * JSON-RPC answer of either kind (`json-rpc-answer`: a mix whose sends may be
   * refused when sent again) or GraphQL `data` without `errors`.
   */
  expect?: 'json-rpc' | 'json-rpc-answer' | 'graphql'
  connections: number
  durationS: number
  /** Parse one response body in this many. */
  sampleEvery: number
  /**
   * GETs of these paths (on `url`'s origin) in turn, shared by all
   * connections, instead of `url` itself: requests that must each find
   * something new (a transaction whose summary nobody asked for yet).
   */
  paths?: string[]
  /** Stop after this many requests instead of after `durationS`. */
  amount?: number
  /** POST these bodies in turn, shared by all connections, instead of `body` (a wallet's mix). */
  bodies?: string[]
  /**
   * POST this body with `{{n}}` replaced by a counter of 64 hex digits from
   * `firstN`, one more each request: requests that never repeat.
   */
  countedBody?: { template: string, firstN: number }
}

export type LoadResult = {
  requests: number
  /** 200s a second. */
  reqPerS: number
  /** What the run lasted, the time reqPerS is counted over. */
  seconds: number
  p50Ms: number
  p99Ms: number
  non200: number
  /** Connection errors, timeouts included. */
  errors: number
  timeouts: number
  sampled: number
  sampleFailures: number
  firstFailure: string | undefined
  /** CPU seconds per wall second of the load generator's process. */
  loadGeneratorCores: number
}

export type Reply = { ok: true, result: LoadResult } | { ok: false, message: string }

export type LoadGenerator = {
  run (job: LoadJob): Promise<LoadResult>
  close (): Promise<void>
}

export function startLoadGenerator (): LoadGenerator {
  // Run compiled (dist/, as bench:rpc is) the worker is compiled beside this file; from the sources, through tsx.
  const compiled = import.meta.url.endsWith('.js')
  const child = fork(new URL(compiled ? './load-worker.js' : './load-worker.ts', import.meta.url), [], {
    execArgv: compiled ? [] : ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  let closing: Promise<void> | undefined
  return {
    run: async (job) => await runOne(child, job),
    close: async () => await (closing ??= stop(child))
  }
}

async function stop (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  // The worker exits when its channel closes.
  if (child.connected) child.disconnect()
  await exited
}

async function runOne (child: ChildProcess, job: LoadJob): Promise<LoadResult> {
  const reply = new Promise<Reply>((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`load generator exited with code ${code}`))
    child.once('exit', onExit)
    child.once('message', (message: Reply) => {
      child.off('exit', onExit)
      resolve(message)
    })
  })
  child.send(job)
  const answer = await reply
  if (!answer.ok) throw new Error(`load generator failed: ${answer.message}`)
  return answer.result
}

/** Two halves as one: combineSlices', but the worse p99 kept. */
export function combineHalves (a: LoadResult, b: LoadResult): LoadResult {
  return { ...combineSlices([a, b]), p99Ms: Math.max(a.p99Ms, b.p99Ms) }
}

/**
 * Slices of one job's load as one run: throughput over their whole time, the
 * median of their medians and p99s, failures summed.
 */
export function combineSlices (slices: LoadResult[]): LoadResult {
  const sum = (pick: (r: LoadResult) => number): number => slices.reduce((n, r) => n + pick(r), 0)
  const seconds = sum((r) => r.seconds)
  return {
    requests: sum((r) => r.requests),
    reqPerS: sum((r) => r.reqPerS * r.seconds) / seconds,
    seconds,
    p50Ms: median(slices.map((r) => r.p50Ms)),
    p99Ms: median(slices.map((r) => r.p99Ms)),
    non200: sum((r) => r.non200),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    sampled: sum((r) => r.sampled),
    sampleFailures: sum((r) => r.sampleFailures),
    firstFailure: slices.find((r) => r.firstFailure !== undefined)?.firstFailure,
    loadGeneratorCores: sum((r) => r.loadGeneratorCores * r.seconds) / seconds
  }
}

/** At most this many slices per job and round: a second each at the least. */
export const MAX_SLICES = 10

/**
 * Each job's `durationS` of load cut into slices (up to MAX_SLICES, a second
 * each at the least) taken in turns, A B C A B C ...: one combined result per
 * job, in order. On a 2-core machine shared with what is measured, the same
 * job run twice a minute apart moved by up to a third; in turns, such drift
 * weighs on every job alike, so ratios between them hold still.
 */
export async function measureInTurns<T> (jobs: readonly T[], durationS: number, measure: (job: T, sliceS: number) => Promise<LoadResult>): Promise<LoadResult[]> {
  const count = Math.max(1, Math.min(MAX_SLICES, Math.floor(durationS)))
  const sliceS = Math.max(1, Math.round(durationS / count))
  const slices = jobs.map(() => [] as LoadResult[])
  for (let i = 0; i < count; i++) for (const [j, job] of jobs.entries()) slices[j]!.push(await measure(job, sliceS))
  return slices.map(combineSlices)
}
