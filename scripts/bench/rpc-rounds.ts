// bench:rpc's workloads measured in rounds: in each, both sides (Geth
// directly, then through the gateway) are warmed, then measured in slices
// taken in turns (measureInTurns), each round starting with the other side;
// a workload's ratio is the median over rounds of the gateway's req/s over
// Geth's. CPU per request is counted for both sides, and the cache's hit
// ratio over the gateway's slices.
import { startCpuMeter } from '../lib/cpu.ts'
import { median } from './figures.ts'
import { measureInTurns, type LoadResult } from './load-generator.ts'
import { printTable } from './report.ts'
import type { RpcWorkload, Side, SideJob } from './rpc-workloads.ts'

/** The cache's counters, read before and after each gateway slice (the app runs in the bench's process). */
export type CacheCounters = () => { hits: number, misses: number, bypassed: number } | undefined

export type SideRound = {
  reqPerS: number
  p50Ms: number
  p99Ms: number
  requests: number
  /** CPU microseconds per request: the gateway's process, and Geth's. */
  gatewayUsPerRequest: number
  gethUsPerRequest: number | null
}

export type WorkloadRound = { direct: SideRound, gateway: SideRound, ratio: number, hitRatio: number | undefined }

export type WorkloadFigures = {
  name: string
  target: number
  rounds: WorkloadRound[]
  medianRatio: number
  pass: boolean
  /** Medians over rounds: CPU per request of the whole path (the gateway's and Geth's together) on each side. */
  directUsPerRequest: number | null
  gatewayUsPerRequest: number | null
  hitRatio: number | undefined
}

export type RoundsOptions = {
  rounds: number
  durationS: number
  warm (job: SideJob): Promise<void>
  run (job: SideJob, durationS: number): Promise<LoadResult>
  urls: Record<Side, string>
  gethPid: number | undefined
  cacheCounters: CacheCounters
}

type Totals = { cpuGatewayS: number, cpuGethS: number | null, requests: number, hits: number, lookups: number }

export async function measureWorkload (workload: RpcWorkload, o: RoundsOptions): Promise<WorkloadFigures> {
  const rounds: WorkloadRound[] = []
  for (let round = 1; round <= o.rounds; round++) {
    const sides: Side[] = round % 2 === 1 ? ['direct', 'gateway'] : ['gateway', 'direct']
    console.error(`${workload.name}, round ${round}/${o.rounds}: ${o.durationS} s per side in slices taken in turns (${sides.join(', ')})`)
    const jobs = new Map<Side, SideJob>()
    for (const side of sides) jobs.set(side, await workload.job(o.urls[side], side, round))
    for (const side of sides) await o.warm(jobs.get(side)!)
    const totals = new Map<Side, Totals>(sides.map((s) => [s, { cpuGatewayS: 0, cpuGethS: 0, requests: 0, hits: 0, lookups: 0 }]))
    const results = await measureInTurns(sides, o.durationS, async (side, sliceS) => {
      const before = o.cacheCounters()
      const stopMeter = await startCpuMeter(o.gethPid)
      const result = checked(workload.name, side, await o.run(jobs.get(side)!, sliceS))
      const cpu = await stopMeter()
      const after = o.cacheCounters()
      const t = totals.get(side)!
      t.cpuGatewayS += cpu.gatewayCores * cpu.wallS
      t.cpuGethS = t.cpuGethS === null || cpu.gethCores === null ? null : t.cpuGethS + cpu.gethCores * cpu.wallS
      t.requests += result.requests
      if (before !== undefined && after !== undefined && side === 'gateway') {
        t.hits += after.hits - before.hits
        t.lookups += (after.hits + after.misses + after.bypassed) - (before.hits + before.misses + before.bypassed)
      }
      return result
    })
    const bySide = new Map(sides.map((s, i) => [s, sideRound(results[i]!, totals.get(s)!)]))
    const gatewayTotals = totals.get('gateway')!
    rounds.push({
      direct: bySide.get('direct')!,
      gateway: bySide.get('gateway')!,
      ratio: bySide.get('gateway')!.reqPerS / bySide.get('direct')!.reqPerS,
      hitRatio: gatewayTotals.lookups === 0 ? undefined : gatewayTotals.hits / gatewayTotals.lookups
    })
  }
  return workloadFigures(workload.name, workload.target, rounds)
}

function sideRound (result: LoadResult, t: Totals): SideRound {
  const perRequest = (s: number): number => result.requests === 0 ? Number.NaN : s / result.requests * 1e6
  return {
    reqPerS: result.reqPerS,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    requests: result.requests,
    gatewayUsPerRequest: perRequest(t.cpuGatewayS),
    gethUsPerRequest: t.cpuGethS === null ? null : perRequest(t.cpuGethS)
  }
}

/** Medians over rounds, and the target. A side's CPU per request is its whole path: Geth's, plus the gateway's through the gateway. */
export function workloadFigures (name: string, target: number, rounds: WorkloadRound[]): WorkloadFigures {
  const medianRatio = median(rounds.map((r) => r.ratio))
  const gethKnown = rounds.every((r) => r.direct.gethUsPerRequest !== null && r.gateway.gethUsPerRequest !== null)
  const hitRatios = rounds.flatMap((r) => r.hitRatio === undefined ? [] : [r.hitRatio])
  return {
    name,
    target,
    rounds,
    medianRatio,
    pass: medianRatio >= target,
    directUsPerRequest: gethKnown ? median(rounds.map((r) => r.direct.gethUsPerRequest!)) : null,
    gatewayUsPerRequest: gethKnown ? median(rounds.map((r) => r.gateway.gatewayUsPerRequest + r.gateway.gethUsPerRequest!)) : null,
    hitRatio: hitRatios.length === 0 ? undefined : median(hitRatios)
  }
}

/** A failed response under load stops the benchmark. */
function checked (name: string, side: Side, m: LoadResult): LoadResult {
  if (m.non200 + m.errors + m.sampleFailures > 0) throw new Error(`${name} ${side}: ${m.non200} non-200, ${m.errors} errors, ${m.sampleFailures} bad samples; first: ${m.firstFailure ?? '?'}`)
  return m
}

export function printWorkloads (figures: WorkloadFigures[], settings: { durationS: number, rounds: number, connections: number, cpus: number }): void {
  console.log(`\nJSON-RPC through the gateway against Geth directly: ${settings.connections} connections, ${settings.rounds} rounds of ${settings.durationS} s per side in slices taken in turns, ${settings.cpus} CPUs\n`)
  printTable(['workload', 'target', 'median ratio', 'rounds', 'direct req/s', 'gateway req/s', 'direct p50', 'gateway p50', 'hit ratio'],
    figures.map((f) => [f.name, `>= ${f.target.toFixed(1)}`, `${f.pass ? 'PASS' : 'FAIL'} ${f.medianRatio.toFixed(3)}`,
      f.rounds.map((r) => r.ratio.toFixed(2)).join(' / '),
      median(f.rounds.map((r) => r.direct.reqPerS)).toFixed(0), median(f.rounds.map((r) => r.gateway.reqPerS)).toFixed(0),
      ms(median(f.rounds.map((r) => r.direct.p50Ms))), ms(median(f.rounds.map((r) => r.gateway.p50Ms))),
      f.hitRatio === undefined ? 'n/a' : `${(f.hitRatio * 100).toFixed(1)} %`]))
  console.log('\nCPU per request (median of rounds, microseconds): Geth alone when asked directly; the gateway and Geth together through the gateway\n')
  printTable(['workload', 'direct: Geth', 'gateway: gateway', 'gateway: Geth', 'gateway: total'],
    figures.map((f) => {
      const gateway = median(f.rounds.map((r) => r.gateway.gatewayUsPerRequest))
      const gethThrough = f.rounds.every((r) => r.gateway.gethUsPerRequest !== null) ? median(f.rounds.map((r) => r.gateway.gethUsPerRequest!)) : null
      return [f.name, us(f.directUsPerRequest), us(gateway), us(gethThrough), us(f.gatewayUsPerRequest)]
    }))
  console.log('')
}

const ms = (value: number): string => `${value.toFixed(3)} ms`
const us = (value: number | null): string => value === null ? 'n/a' : value.toFixed(1)
