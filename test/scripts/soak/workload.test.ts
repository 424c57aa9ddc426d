import t from 'tap'
import { percentile, skewedIndex } from '../../../scripts/soak/workload.ts'

t.test('skewedIndex() favours the first values as 1/(i+1) does, and stays in range', async (t) => {
  let seed = 1
  // A fixed generator: the test reads the same draws every time.
  const random = (): number => { seed = (seed * 16807) % 2147483647; return (seed - 1) / 2147483646 }
  const counts = new Array(10).fill(0) as number[]
  for (let i = 0; i < 20_000; i++) counts[skewedIndex(10, random)]!++
  t.equal(counts.reduce((a, b) => a + b, 0), 20_000, 'every draw in 0..9')
  t.ok(counts[0]! > 2 * counts[1]! * 0.8 && counts[0]! > 5 * counts[9]!, `the first far ahead: ${counts.join(' ')}`)
  t.ok(counts[1]! > counts[4]! && counts[4]! > counts[9]!, 'falling with the index')
  t.equal(skewedIndex(1, random), 0)
})

t.test('percentile() of sorted latencies', async (t) => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1)
  t.equal(percentile(sorted, 0.5), 51)
  t.equal(percentile(sorted, 0.99), 100)
  t.equal(percentile([], 0.5), 0)
})
