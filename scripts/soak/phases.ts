// The soak's measured phases over one gateway: latency at a low rate (idle),
// offered rates stepped up to the highest the machine sustains, the same
// skewed workload with and without If-None-Match, and a long run at the rate
// found. Each returns its figures; scripts/soak.ts prints and judges them.
import { setTimeout as sleep } from 'node:timers/promises'
import { processCpuSeconds } from '../lib/cpu.ts'
import type { SoakClient } from './http.ts'
import type { Sampler } from './samples.ts'
import { startOfferedRate, startWorkload, summarize, type Figures, type InterfaceName, type Summary, type WorkloadOptions, type createPicks } from './workload.ts'

/** A rate is sustained while the p99 of all requests stays within this many times the idle p99 (and the index keeps up: maxLagBlocks). */
export const P99_LIMIT_FACTOR = 3
/** Each step offers this many times the last. */
const STEP_FACTOR = 1.5
/** Requests waiting at once past which an offered rate counts as not sustained. */
const MAX_IN_FLIGHT = 256
/** The share of the offered rate that must be answered. */
const MIN_ANSWERED_SHARE = 0.95

type Picks = ReturnType<typeof createPicks>

/** How SOAK_DURATION_S is shared: idle, one rate step, each half of the ETag comparison, the stepping's budget; the sustained run gets the rest. */
export function phaseDurations (durationS: number) {
  // At least a second each: a few-second run (the suite's own test) still goes through every phase.
  const share = (part: number): number => Math.max(1, Math.round(durationS * part))
  return { idleS: share(0.05), stepS: share(0.05), compareS: share(0.1), steppingBudgetS: durationS * 0.45 }
}

export type PhaseFigures = { elapsedS: number, figures: Figures, summary: Record<InterfaceName | 'all', Summary> }

/** `lagBlocks`: the most the index trailed the node in the step's samples; undefined when none was taken. */
export type Step = PhaseFigures & { offeredPerS: number, skipped: number, lagBlocks: number | undefined, sustained: boolean, why: string }

/** `ratePerS` offered for `durationS`. */
export async function runOffered (client: SoakClient, picks: Picks, ratePerS: number, durationS: number, options: WorkloadOptions = {}) {
  const workload = startOfferedRate(client, picks, ratePerS, MAX_IN_FLIGHT, options)
  await sleep(durationS * 1000)
  const elapsedS = await workload.stop()
  return { elapsedS, figures: workload.figures, summary: summarize(workload.figures, elapsedS), skipped: workload.skipped }
}

/** Why a step is not sustained (every criterion it missed), or '' when it is. */
export function judgeStep (offeredPerS: number, r: { summary: { all: Summary }, skipped: number }, o: { idleP99Ms: number, lagBlocks: number | undefined, maxLagBlocks: number }): string {
  const all = r.summary.all
  const why: string[] = []
  if (all.failures > 0) why.push(`${all.failures} failed`)
  if (r.skipped > 0) why.push(`${r.skipped} not sent (${MAX_IN_FLIGHT} waiting)`)
  if (all.ratePerS < offeredPerS * MIN_ANSWERED_SHARE) why.push(`answered ${all.ratePerS.toFixed(1)}/s`)
  if (all.p99Ms > P99_LIMIT_FACTOR * o.idleP99Ms) why.push(`p99 ${all.p99Ms.toFixed(1)} ms > ${P99_LIMIT_FACTOR} x ${o.idleP99Ms.toFixed(1)} ms`)
  // The index fell behind: not a rate the machine sustains, however fast the answers.
  if (o.lagBlocks !== undefined && o.lagBlocks > o.maxLagBlocks) why.push(`indexer lag ${o.lagBlocks} blocks > ${o.maxLagBlocks}`)
  return why.join('; ')
}

/** The lag samples taken while `run` ran, and the most the index trailed in them (undefined: none taken). */
async function withLag<T> (sampler: LagSampler, run: () => Promise<T>): Promise<T & { lagBlocks: number | undefined }> {
  const first = sampler.samples.length
  const result = await run()
  const lags = sampler.samples.slice(first).map((x) => x.lagBlocks).filter(Number.isFinite)
  return { ...result, lagBlocks: lags.length === 0 ? undefined : Math.max(...lags) }
}

export type LagSampler = Pick<Sampler, 'samples'>

/**
 * Steps the offered rate up by STEP_FACTOR from `startPerS` while each step is
 * sustained, then tries once between the last sustained rate and the first
 * that was not, as long as `budgetS` lasts (one step at least).
 */
export async function stepRates (client: SoakClient, picks: Picks, o: { startPerS: number, stepS: number, budgetS: number, idleP99Ms: number, maxLagBlocks: number, sampler: LagSampler, log: (line: string) => void }): Promise<Step[]> {
  const steps: Step[] = []
  const startedAt = performance.now()
  const within = (): boolean => steps.length === 0 || (performance.now() - startedAt) / 1000 + o.stepS <= o.budgetS
  const run = async (offeredPerS: number): Promise<Step> => {
    const r = await withLag(o.sampler, async () => await runOffered(client, picks, offeredPerS, o.stepS))
    const why = judgeStep(offeredPerS, r, { idleP99Ms: o.idleP99Ms, lagBlocks: r.lagBlocks, maxLagBlocks: o.maxLagBlocks })
    const step = { ...r, offeredPerS, sustained: why === '', why }
    o.log(`soak: offered ${offeredPerS.toFixed(0)}/s: answered ${r.summary.all.ratePerS.toFixed(1)}/s, p99 ${r.summary.all.p99Ms.toFixed(1)} ms, lag ${r.lagBlocks ?? '-'} ${why === '' ? 'sustained' : `not sustained: ${why}`}`)
    steps.push(step)
    return step
  }
  let rate = o.startPerS
  while (within()) {
    const step = await run(rate)
    if (!step.sustained) break
    rate *= STEP_FACTOR
  }
  const best = highestSustained(steps)
  const failed = steps[steps.length - 1]
  if (failed !== undefined && !failed.sustained && best !== undefined && within()) await run(Math.sqrt(best.offeredPerS * failed.offeredPerS))
  return steps
}

export function highestSustained (steps: Step[]): Step | undefined {
  return steps.filter((s) => s.sustained).sort((a, b) => b.offeredPerS - a.offeredPerS)[0]
}

export type Comparison = PhaseFigures & { revalidate: boolean, gatewayCpuMsPerRequest: number | null }

/** The comparison alternates its two halves this many times: the machine's load drifts, and each half sees the same drift. */
export const COMPARE_ROUNDS = 3

/** The skewed workload from `concurrency` loops for `durationS`, with or without If-None-Match, and the gateway's CPU per request. */
async function measureClosedLoop (client: SoakClient, picks: Picks, gatewayPid: number, o: { concurrency: number, durationS: number, revalidate: boolean }): Promise<Comparison> {
  const cpuBefore = await processCpuSeconds(gatewayPid)
  const workload = startWorkload(client, picks, o.concurrency, { revalidate: o.revalidate })
  await sleep(o.durationS * 1000)
  const elapsedS = await workload.stop()
  const cpuAfter = await processCpuSeconds(gatewayPid)
  const summary = summarize(workload.figures, elapsedS)
  const gatewayCpuMsPerRequest = cpuBefore === null || cpuAfter === null || summary.all.requests === 0 ? null : (cpuAfter - cpuBefore) * 1000 / summary.all.requests
  return { elapsedS, figures: workload.figures, summary, revalidate: o.revalidate, gatewayCpuMsPerRequest }
}

/** COMPARE_ROUNDS rounds of the closed loop without, then with If-None-Match: `halfS` for each of the two in all. */
export async function compareRevalidation (client: SoakClient, picks: Picks, gatewayPid: number, o: { concurrency: number, halfS: number }): Promise<Array<[Comparison, Comparison]>> {
  const roundS = Math.max(0.5, o.halfS / COMPARE_ROUNDS)
  const rounds: Array<[Comparison, Comparison]> = []
  for (let i = 0; i < COMPARE_ROUNDS; i++) {
    rounds.push([
      await measureClosedLoop(client, picks, gatewayPid, { concurrency: o.concurrency, durationS: roundS, revalidate: false }),
      await measureClosedLoop(client, picks, gatewayPid, { concurrency: o.concurrency, durationS: roundS, revalidate: true })
    ])
  }
  return rounds
}
