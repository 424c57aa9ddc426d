import t from 'tap'
import { rssSlopeMiBPerMin, type Sample } from '../../../scripts/soak/samples.ts'
import { phaseDurations } from '../../../scripts/soak/phases.ts'

const MiB = 1024 * 1024
const sample = (atS: number, rssMiB: number): Sample => ({ phase: 'sustained', atS, lagBlocks: 0, rssBytes: rssMiB * MiB })

t.test('rssSlopeMiBPerMin() is the least-squares trend of RSS, in MiB a minute', async (t) => {
  t.equal(rssSlopeMiBPerMin([sample(0, 200), sample(60, 201), sample(120, 202)]), 1)
  t.equal(rssSlopeMiBPerMin([sample(0, 200), sample(30, 210), sample(60, 200)]), 0, 'a bump is no trend')
  t.ok(Math.abs(rssSlopeMiBPerMin([sample(0, 200), sample(60, 199), sample(120, 198.5)]) + 0.75) < 1e-9)
  t.equal(rssSlopeMiBPerMin([sample(0, 200)]), 0)
  t.equal(rssSlopeMiBPerMin([sample(0, 200), { ...sample(60, 0), rssBytes: NaN }]), 0, 'unread samples are left out')
})

t.test('phaseDurations() shares the run and gives every phase a second at least', async (t) => {
  t.same(phaseDurations(600), { idleS: 30, stepS: 30, compareS: 60, steppingBudgetS: 270 })
  t.same(phaseDurations(6), { idleS: 1, stepS: 1, compareS: 1, steppingBudgetS: 2.7 })
})
