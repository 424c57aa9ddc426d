import { test } from 'tap'
import { medianRatio, type Round } from '../../../../scripts/bench/indexer/report.ts'

/** Floors of 100 ms: a backfill of 121 ms is a ratio of 1.21 exactly. */
const rounds = (...backfillsMs: number[]): Round[] => backfillsMs.map((backfillMs) => ({ floorMs: 100, backfillMs }))

test('the ratio target takes the middle round, not the first or the best', async (t) => {
  t.equal(medianRatio(rounds(121)), 1.21)
  t.equal(medianRatio(rounds(148, 121, 140)), 1.40)
  t.equal(medianRatio(rounds(150, 120, 140, 130)), 1.35)
})
