// The benchmarks' slices in turns (measureInTurns): slices taken A B A B,
// a job's figure its requests over its seconds.
import t from 'tap'
import { MAX_SLICES, combineHalves, combineSlices, measureInTurns, type LoadResult } from '../../../scripts/bench/load-generator.ts'

const result = (reqPerS: number, seconds: number, p99Ms = 1): LoadResult => ({
  requests: reqPerS * seconds, reqPerS, seconds, p50Ms: 1, p99Ms, non200: 0, errors: 0, timeouts: 0, sampled: 1, sampleFailures: 0, firstFailure: undefined, loadGeneratorCores: 0.5
})

t.test('slices are taken in turns, up to MAX_SLICES of a second at the least', async (t) => {
  for (const [durationS, count, sliceS] of [[3, 3, 1], [10, MAX_SLICES, 1], [30, MAX_SLICES, 3]] as const) {
    const calls: string[] = []
    await measureInTurns(['a', 'b'], durationS, async (job, s) => { calls.push(`${job} ${s}`); return result(1, s) })
    t.same(calls, Array.from({ length: count }, () => [`a ${sliceS}`, `b ${sliceS}`]).flat(), `${durationS} s: ${count} slices of ${sliceS} s each`)
  }
})

t.test('slices combine into their throughput over their whole time', async (t) => {
  const combined = combineSlices([result(100, 1, 3), result(200, 3, 1), result(300, 1, 2)])
  t.equal(combined.requests, 1000)
  t.equal(combined.seconds, 5)
  t.equal(combined.reqPerS, 200, '1,000 requests in 5 s, not the mean of the slices\' rates')
  t.equal(combined.p99Ms, 2, 'the median slice\'s p99')
})

t.test('two halves combine as slices do, but keep the worse p99', async (t) => {
  const combined = combineHalves(result(100, 2, 3), result(300, 2, 5))
  t.equal(combined.reqPerS, 200)
  t.equal(combined.requests, 800)
  t.equal(combined.p99Ms, 5)
})
