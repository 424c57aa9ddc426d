// What the benchmark prints: a table per concern for people, then one JSON
// line with every figure for machines (`npm run bench:rpc | tail -n 1`).
import type { CpuUsage } from '../lib/cpu.ts'
import type { LoadResult } from './load-generator.ts'

export const TARGET_MIN_RATIO = 0.85
export const TARGET_MAX_ADDED_P50_MS = 1

export type Measurement = LoadResult & { cpu: CpuUsage }

export type MethodFigures = {
  method: string
  direct: Measurement
  gateway: Measurement
  /** Gateway req/s over direct req/s. */
  ratio: number
  /** Gateway p50 minus direct p50. */
  addedP50Ms: number
  ratioPass: boolean
  latencyPass: boolean
}

export type BenchSettings = { durationS: number, warmupS: number, connections: number, sampleEvery: number, cpus: number }

export function compare (method: string, direct: Measurement, gateway: Measurement): MethodFigures {
  const ratio = gateway.reqPerS / direct.reqPerS
  const addedP50Ms = gateway.p50Ms - direct.p50Ms
  return { method, direct, gateway, ratio, addedP50Ms, ratioPass: ratio >= TARGET_MIN_RATIO, latencyPass: addedP50Ms <= TARGET_MAX_ADDED_P50_MS }
}

/** Responses that were not a 200 with a JSON-RPC result make the figures meaningless. */
export function failures (figures: MethodFigures[]): string[] {
  return figures.flatMap((f) => (['direct', 'gateway'] as const).flatMap((target) => {
    const m = f[target]
    if (m.non200 + m.errors + m.sampleFailures === 0) return []
    const first = m.firstFailure === undefined ? '' : `; first: ${m.firstFailure}`
    return [`${f.method} ${target}: ${m.non200} non-200, ${m.errors} connection errors (${m.timeouts} timeouts), ` +
      `${m.sampleFailures}/${m.sampled} sampled bodies without a result${first}`]
  }))
}

export function printReport (figures: MethodFigures[], settings: BenchSettings): void {
  const { durationS, warmupS, connections, sampleEvery, cpus } = settings
  console.log(`\nJSON-RPC proxy overhead: ${connections} connections, ${durationS} s per run after a ${warmupS} s warm-up, ${cpus} CPUs\n`)
  printTable(['method', 'direct req/s', 'gateway req/s', 'ratio', 'direct p50', 'gateway p50', 'added p50', 'direct p99', 'gateway p99'],
    figures.map((f) => [f.method, rate(f.direct.reqPerS), rate(f.gateway.reqPerS), f.ratio.toFixed(3),
      ms(f.direct.p50Ms), ms(f.gateway.p50Ms), ms(f.addedP50Ms), ms(f.direct.p99Ms), ms(f.gateway.p99Ms)]))
  console.log(`\nTargets: ratio >= ${TARGET_MIN_RATIO}, added median <= ${TARGET_MAX_ADDED_P50_MS} ms\n`)
  printTable(['method', 'ratio', 'added p50'],
    figures.map((f) => [f.method, `${mark(f.ratioPass)} ${f.ratio.toFixed(3)}`, `${mark(f.latencyPass)} ${ms(f.addedP50Ms)}`]))
  // Everything shares the machine's cores: who was busy explains a low ratio,
  // and `other` shows load from outside the benchmark that makes a run unfair.
  console.log(`\nCPU during each measured run, in cores used (of ${cpus})\n`)
  printTable(['method', 'target', 'load generator', 'gateway', 'geth', 'other', 'machine'],
    figures.flatMap((f) => (['direct', 'gateway'] as const).map((target) => {
      const { loadGeneratorCores, cpu } = f[target]
      const machineCores = cpu.machineBusy * cpus
      const otherCores = machineCores - loadGeneratorCores - cpu.gatewayCores - (cpu.gethCores ?? 0)
      return [f.method, target, cores(loadGeneratorCores), cores(cpu.gatewayCores), cpu.gethCores === null ? 'n/a' : cores(cpu.gethCores),
        cores(Math.max(0, otherCores)), `${cores(machineCores)} (${(cpu.machineBusy * 100).toFixed(0)} %)`]
    })), 2)
  console.log(`\nResponses checked (every ${sampleEvery}th body parsed for a result)\n`)
  printTable(['method', 'target', 'responses', 'non-200', 'errors', 'sampled', 'bad samples'],
    figures.flatMap((f) => (['direct', 'gateway'] as const).map((target) => {
      const m = f[target]
      return [f.method, target, String(m.requests), String(m.non200), String(m.errors), String(m.sampled), String(m.sampleFailures)]
    })), 2)
  console.log('')
}

/** `extra`: further sections of the run (bench:rpc's access layer figures). */
export function printJson (figures: MethodFigures[], settings: BenchSettings, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({
    ...settings,
    node: process.version,
    targets: { minRatio: TARGET_MIN_RATIO, maxAddedP50Ms: TARGET_MAX_ADDED_P50_MS },
    methods: figures,
    ...extra
  }))
}

/** The first `nameColumns` columns are names, aligned left; figures align right so their digits line up. */
export function printTable (header: string[], rows: string[][], nameColumns = 1): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]): string => cells.map((c, i) => i < nameColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)).join('  ')
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const row of rows) console.log(line(row))
}

const rate = (perS: number): string => perS.toFixed(0)
const ms = (value: number): string => `${value.toFixed(3)} ms`
const cores = (value: number): string => value.toFixed(2)
const mark = (pass: boolean): string => pass ? 'PASS' : 'FAIL'
