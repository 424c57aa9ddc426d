// What npm run soak prints: the rate steps, the highest sustained rate, the
// figures per interface at that rate, what If-None-Match gains, and the
// checks with their verdicts. Returns whether every check passed.
import { cpus } from 'node:os'
import { printTable } from '../bench/report.ts'
import { P99_LIMIT_FACTOR, type Comparison, type PhaseFigures, type Step } from './phases.ts'
import { rssSlopeMiBPerMin, type Sample } from './samples.ts'
import { summarize, type Figures, type InterfaceFigures, type InterfaceName, type Summary } from './workload.ts'

export type SoakReport = {
  settings: { maxLagBlocks: number, rssMarginMiB: number, transferIntervalMs: number }
  elapsedS: number
  load: [number[], number[]]
  idle: PhaseFigures & { offeredPerS: number }
  steps: Step[]
  best: Step | undefined
  sustained: PhaseFigures & { offeredPerS: number, skipped: number }
  comparison: Array<[Comparison, Comparison]>
  samples: Sample[]
  transfers: { sent: number, failed: number }
  heard: Array<{ heads: number, open: boolean }>
  alive: boolean
  memory: Array<[string, string, boolean]>
}

const ms = (value: number): string => `${value.toFixed(1)} ms`
const NAMES: Array<InterfaceName | 'all'> = ['JSON-RPC', 'REST', 'GraphQL', 'all']

export function printSoakReport (r: SoakReport): boolean {
  const load = (l: number[]): string => l.map((x) => x.toFixed(1)).join(' ')
  const heads = Math.max(0, ...r.heard.map((h) => h.heads))
  console.log(`\nsoak: ${r.elapsedS.toFixed(0)} s on ${cpus().length} cores, load average ${load(r.load[0])} at the start, ${load(r.load[1])} at the end; ${r.transfers.sent} transfers sent through JSON-RPC (${r.transfers.failed} refused), one after another ${r.settings.transferIntervalMs} ms apart; ${heads} new heads, ${(heads / r.elapsedS).toFixed(1)} blocks/s\n`)
  const lagIn = (phase: string): string => String(maxLag(r.samples, [phase]) ?? '-')
  printTable(['offered/s', 'answered/s', 'p50', 'p99', 'lag', 'verdict'], [
    [`idle ${r.idle.offeredPerS}`, r.idle.summary.all.ratePerS.toFixed(1), ms(r.idle.summary.all.p50Ms), ms(r.idle.summary.all.p99Ms), lagIn('idle'), 'the reference'],
    ...r.steps.map((s) => [s.offeredPerS.toFixed(0), s.summary.all.ratePerS.toFixed(1), ms(s.summary.all.p50Ms), ms(s.summary.all.p99Ms), String(s.lagBlocks ?? '-'), s.sustained ? 'sustained' : s.why])
  ])
  const idleP99 = r.idle.summary.all.p99Ms
  console.log(`\nhighest sustained rate: ${r.best === undefined ? 'none of the steps' : `${r.best.offeredPerS.toFixed(0)} requests/s`} (p99 within ${P99_LIMIT_FACTOR} x the idle p99 of ${ms(idleP99)}, indexer lag at most ${r.settings.maxLagBlocks} block${r.settings.maxLagBlocks === 1 ? '' : 's'}); ${boundBy(r.steps, r.best)}`)
  console.log(`\nat ${r.sustained.offeredPerS.toFixed(0)}/s for ${r.sustained.elapsedS.toFixed(0)} s (idle p50/p99 beside):\n`)
  printTable(['interface', 'requests', 'req/s', 'p50', 'p99', 'failures', 'idle p50', 'idle p99'], NAMES.map((name) => {
    const s: Summary = r.sustained.summary[name]
    const i: Summary = r.idle.summary[name]
    return [name, String(s.requests), s.ratePerS.toFixed(1), ms(s.p50Ms), ms(s.p99Ms), String(s.failures), ms(i.p50Ms), ms(i.p99Ms)]
  }))
  printComparison(r.comparison)
  console.log(`\nWebSocket newHeads: ${r.heard.length} subscribers heard ${r.heard.map((h) => h.heads).join(', ')} heads`)

  const failures = [r.idle, ...r.steps, ...r.comparison.flat(), r.sustained].reduce((n, p) => n + p.summary.all.failures, 0)
  const sustainedSamples = r.samples.filter((x) => x.phase === 'sustained')
  const slope = rssSlopeMiBPerMin(sustainedSamples)
  const trendMiB = slope * r.sustained.elapsedS / 60
  const rssFirst = sustainedSamples.find((x) => Number.isFinite(x.rssBytes))?.rssBytes
  const rssLast = [...sustainedSamples].reverse().find((x) => Number.isFinite(x.rssBytes))?.rssBytes
  const checks: Array<[string, string, boolean]> = [
    ['requests failed', String(failures), failures === 0],
    ['gateway process alive', r.alive ? 'yes' : 'no', r.alive],
    ...r.memory,
    ['gateway RSS trend (sustained)', `${mib(rssFirst)} -> ${mib(rssLast)} MiB, ${slope >= 0 ? '+' : ''}${slope.toFixed(2)} MiB/min`, trendMiB <= r.settings.rssMarginMiB],
    lagCheck(r.samples, r.settings.maxLagBlocks),
    ['WebSocket subscribers', `${r.heard.filter((h) => h.open && h.heads > 0).length} of ${r.heard.length} open and hearing`, r.heard.every((h) => h.open && h.heads > 0)]
  ]
  console.log('')
  printTable(['check', 'figure', 'verdict'], checks.map(([name, figure, pass]) => [name, figure, pass ? 'PASS' : 'FAIL']))
  for (const phase of [r.idle, ...r.steps, ...r.comparison.flat(), r.sustained]) {
    for (const [name, f] of Object.entries(phase.figures)) if (f.firstFailure !== undefined) console.log(`\n${name}: first failure: ${f.firstFailure}`)
  }
  const pass = checks.every(([, , ok]) => ok)
  console.log(`\nsoak: ${pass ? 'PASS' : 'FAIL'}`)
  return pass
}

/** The most the index trailed the node in the samples of `phases`; undefined when none was read. */
export function maxLag (samples: Sample[], phases: string[]): number | undefined {
  const lags = samples.filter((x) => phases.includes(x.phase) && Number.isFinite(x.lagBlocks)).map((x) => x.lagBlocks)
  return lags.length === 0 ? undefined : Math.max(...lags)
}

/**
 * The lag verdict: at most `maxLagBlocks` in every sample of the idle and
 * sustained phases, and a sample read in them and at the end (a lag never
 * measured is no pass). The overloaded steps and the comparison are reported.
 */
export function lagCheck (samples: Sample[], maxLagBlocks: number): [string, string, boolean] {
  const judged = maxLag(samples, ['idle', 'sustained'])
  const last = samples[samples.length - 1]?.lagBlocks ?? NaN
  const shown = (lag: number | undefined): string => lag === undefined ? 'not measured' : String(lag)
  return ['indexer lag (blocks)', `max ${shown(judged)} idle and sustained (${shown(maxLag(samples, ['stepping', 'compare']))} stepping and comparing), at the end ${shown(Number.isFinite(last) ? last : undefined)}`,
    judged !== undefined && judged <= maxLagBlocks && Number.isFinite(last)]
}

/** Which criterion stopped the stepping: the lowest step above the best that was not sustained, and why. */
export function boundBy (steps: Step[], best: Step | undefined): string {
  const stopped = steps.filter((s) => !s.sustained && s.offeredPerS > (best?.offeredPerS ?? 0)).sort((a, b) => a.offeredPerS - b.offeredPerS)[0]
  if (stopped === undefined) return 'no step above it was refused (the stepping\'s time ran out first)'
  return `bound by ${stopped.offeredPerS.toFixed(0)}/s: ${stopped.why}`
}

const mib = (bytes: number | undefined): string => bytes === undefined ? '?' : (bytes / 1024 / 1024).toFixed(1)

/** One half of the comparison over its rounds: rates over the time they ran, percentiles over all their latencies. */
function combine (halves: Comparison[]) {
  const elapsedS = halves.reduce((a, c) => a + c.elapsedS, 0)
  const sum = (fs: InterfaceFigures[], key: 'requests' | 'failures' | 'notModified'): number => fs.reduce((n, f) => n + f[key], 0)
  const figures = Object.fromEntries((['JSON-RPC', 'REST', 'GraphQL'] as const).map((name) => {
    const all = halves.map((c) => c.figures[name])
    return [name, { requests: sum(all, 'requests'), failures: sum(all, 'failures'), notModified: sum(all, 'notModified'), latenciesMs: all.flatMap((f) => f.latenciesMs) }]
  })) as Figures
  const summary = summarize(figures, elapsedS)
  const cpu = halves.every((c) => c.gatewayCpuMsPerRequest !== null)
    ? halves.reduce((a, c) => a + c.gatewayCpuMsPerRequest! * c.summary.all.requests, 0) / Math.max(1, summary.all.requests)
    : null
  return { summary, cpu }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN

function printComparison (rounds: Array<[Comparison, Comparison]>): void {
  console.log(`\nthe skewed workload without and with If-None-Match (closed loop, the ETag cache on in both; ${rounds.length} rounds of each, alternated):\n`)
  const plain = combine(rounds.map(([p]) => p))
  const revalidating = combine(rounds.map(([, v]) => v))
  const row = (name: string, c: ReturnType<typeof combine>): string[] => [
    name,
    c.summary.all.ratePerS.toFixed(1),
    c.summary.REST.ratePerS.toFixed(1),
    ms(c.summary.REST.p50Ms),
    ms(c.summary.REST.p99Ms),
    `${(100 * c.summary.REST.notModified / Math.max(1, c.summary.REST.requests)).toFixed(0)} %`,
    c.cpu === null ? '?' : ms(c.cpu)
  ]
  printTable(['If-None-Match', 'req/s', 'REST req/s', 'REST p50', 'REST p99', 'REST 304', 'gateway CPU/req'], [row('not sent', plain), row('sent', revalidating)])
  const ratios = (of: (c: Comparison) => number | null): string => {
    const each = rounds.map(([p, v]) => { const a = of(v); const b = of(p); return a === null || b === null || b === 0 ? NaN : a / b })
    return `x${median(each).toFixed(2)} (rounds ${each.map((x) => x.toFixed(2)).join(', ')})`
  }
  console.log(`\nIf-None-Match sent over not sent, median of the rounds: requests/s ${ratios((c) => c.summary.all.ratePerS)}, REST p50 ${ratios((c) => c.summary.REST.p50Ms)}, gateway CPU per request ${ratios((c) => c.gatewayCpuMsPerRequest)}`)
}
