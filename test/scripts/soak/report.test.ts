// The soak's verdicts on the indexer's lag: a lag above SOAK_MAX_LAG_BLOCKS,
// or one never measured, is a FAIL, in the checks and in the rate steps.
import t from 'tap'
import { judgeStep, highestSustained, type Step } from '../../../scripts/soak/phases.ts'
import { boundBy, lagCheck, printSoakReport, type SoakReport } from '../../../scripts/soak/report.ts'
import type { Sample } from '../../../scripts/soak/samples.ts'
import { summarize, type Figures } from '../../../scripts/soak/workload.ts'

const sample = (phase: string, lagBlocks: number): Sample => ({ phase, atS: 0, lagBlocks, rssBytes: 200 * 1024 * 1024 })

t.test('lagCheck() passes only when every idle and sustained sample is within the limit', async (t) => {
  t.equal(lagCheck([sample('idle', 0), sample('sustained', 1), sample('sustained', 1)], 1)[2], true)
  const behind = lagCheck([sample('idle', 0), sample('sustained', 2), sample('sustained', 0)], 1)
  t.equal(behind[2], false, 'one sample 2 blocks behind fails')
  t.match(behind[1], /^max 2 idle and sustained/)
  t.equal(lagCheck([sample('idle', 2), sample('sustained', 0)], 1)[2], false, 'the idle phase is judged too')
  t.equal(lagCheck([sample('stepping', 7), sample('compare', 5), sample('sustained', 1)], 1)[2], true, 'the overloaded steps are reported, not judged')
  t.match(lagCheck([sample('stepping', 7), sample('sustained', 1)], 1)[1], /\(7 stepping and comparing\)/)
  const unmeasured = lagCheck([sample('stepping', 0), sample('sustained', NaN)], 1)
  t.equal(unmeasured[2], false, 'a lag never read is no pass')
  t.match(unmeasured[1], /^max not measured idle and sustained/)
  t.equal(lagCheck([sample('sustained', 0), sample('sustained', NaN)], 1)[2], false, 'unread at the end')
  t.equal(lagCheck([], 1)[2], false)
})

const emptyFigures = (): Figures => ({
  'JSON-RPC': { requests: 0, failures: 0, notModified: 0, latenciesMs: [] },
  REST: { requests: 10, failures: 0, notModified: 0, latenciesMs: Array.from({ length: 10 }, (_, i) => 10 + i) },
  GraphQL: { requests: 0, failures: 0, notModified: 0, latenciesMs: [] }
})

function phase (ratePerS = 10) {
  const figures = emptyFigures()
  return { elapsedS: 1, figures, summary: summarize(figures, 10 / ratePerS), skipped: 0 }
}

function step (offeredPerS: number, lagBlocks: number | undefined): Step {
  const r = phase(offeredPerS)
  const why = judgeStep(offeredPerS, r, { idleP99Ms: 19, lagBlocks, maxLagBlocks: 1 })
  return { ...r, offeredPerS, lagBlocks, sustained: why === '', why }
}

t.test('judgeStep() refuses a rate at which the index fell behind, however fast the answers', async (t) => {
  t.equal(step(20, 1).why, '')
  t.equal(step(20, undefined).why, '', 'no sample in the step: judged on its answers')
  t.equal(step(30, 2).why, 'indexer lag 2 blocks > 1')
  const steps = [step(20, 0), step(30, 1), step(45, 3)]
  t.equal(highestSustained(steps)?.offeredPerS, 30)
  t.equal(boundBy(steps, highestSustained(steps)), 'bound by 45/s: indexer lag 3 blocks > 1')
  const slow = judgeStep(45, { ...phase(45), summary: { ...phase(45).summary, all: { ...phase(45).summary.all, p99Ms: 100 } } }, { idleP99Ms: 19, lagBlocks: 3, maxLagBlocks: 1 })
  t.equal(slow, 'p99 100.0 ms > 3 x 19.0 ms; indexer lag 3 blocks > 1', 'every criterion missed is named')
})

function report (samples: Sample[]): SoakReport {
  const steps = [step(20, 0), step(30, 2)]
  return {
    settings: { maxLagBlocks: 1, rssMarginMiB: 128, transferIntervalMs: 100 },
    elapsedS: 10,
    load: [[1, 1, 1], [1, 1, 1]],
    idle: { ...phase(), offeredPerS: 5 },
    steps,
    best: highestSustained(steps),
    sustained: { ...phase(20), offeredPerS: 20 },
    comparison: [[{ ...phase(), revalidate: false, gatewayCpuMsPerRequest: 1 }, { ...phase(), revalidate: true, gatewayCpuMsPerRequest: 1 }]],
    samples,
    transfers: { sent: 50, failed: 0 },
    heard: [{ heads: 50, open: true }],
    alive: true,
    memory: [['gateway RSS after GC', '200 -> 200 MiB', true]]
  }
}

async function printed (r: SoakReport): Promise<{ pass: boolean, out: string }> {
  const lines: string[] = []
  const log = console.log
  console.log = (...args: unknown[]) => { lines.push(args.join(' ')) }
  try {
    return { pass: printSoakReport(r), out: lines.join('\n') }
  } finally {
    console.log = log
  }
}

t.test('printSoakReport() says FAIL when the index trailed by more than a block, PASS when it kept up', async (t) => {
  const behind = await printed(report([sample('idle', 0), sample('sustained', 2), sample('sustained', 1)]))
  t.equal(behind.pass, false)
  t.match(behind.out, /^indexer lag \(blocks\) +max 2 idle and sustained .* FAIL$/m)
  t.match(behind.out, /\nsoak: FAIL$/)
  t.match(behind.out, /^highest sustained rate: 20 requests\/s .*indexer lag at most 1 block\); bound by 30\/s: indexer lag 2 blocks > 1$/m)
  const kept = await printed(report([sample('idle', 0), sample('sustained', 1), sample('sustained', 0)]))
  t.equal(kept.pass, true, kept.out)
  t.match(kept.out, /^indexer lag \(blocks\) +max 1 idle and sustained .* PASS$/m)
  t.match(kept.out, /\nsoak: PASS$/)
})
