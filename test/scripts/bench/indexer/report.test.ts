import { test } from 'tap'
import { medianRatio, type Round } from '../../../../scripts/bench/indexer/report.ts'

const rounds = (...ratios: number[]): Round[] => ratios.map((ratio) => ({ floorMs: 1000, backfillMs: 1000 * ratio, ratio }))

test('the ratio target takes the middle round, not the first or the best', async (t) => {
  t.equal(medianRatio(rounds(1.21)), 1.21)
  t.equal(medianRatio(rounds(1.48, 1.21, 1.40)), 1.40)
  t.equal(medianRatio(rounds(1.5, 1.2, 1.4, 1.3)), 1.35)
})
