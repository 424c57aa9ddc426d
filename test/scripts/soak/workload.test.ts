import t from 'tap'
import { percentile, skewedIndex, startOfferedRate } from '../../../scripts/soak/workload.ts'
import type { SoakClient } from '../../../scripts/soak/http.ts'

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

t.test('startOfferedRate() sends each request when it is due, not an interval later: latency counts from the due time', async (t) => {
  const sentAtMs: number[] = []
  // The scheduler is under test, not a server: answers come at once.
  const client: SoakClient = {
    send: async () => { sentAtMs.push(performance.now()); return { status: 200, text: '', etag: undefined } },
    close: async () => {}
  }
  const startedAt = performance.now()
  const workload = startOfferedRate(client, [{ name: 'REST', weight: 1, make: () => ({ method: 'GET', path: '/' }) }], 5, 10)
  await new Promise((resolve) => setTimeout(resolve, 650))
  await workload.stop()
  // Due at 0, 200, 400 and 600 ms; the slack below is for a loaded machine's late timers.
  t.ok(workload.figures.REST.requests >= 3, `four were due in 650 ms at 5/s (${workload.figures.REST.requests} sent)`)
  t.ok(sentAtMs[0]! - startedAt < 150, `the first sent at once (${(sentAtMs[0]! - startedAt).toFixed(1)} ms)`)
  const worst = Math.max(...workload.figures.REST.latenciesMs)
  t.ok(worst < 150, `latencies from the due time stay well within an interval (worst ${worst.toFixed(1)} ms; an interval is 200 ms)`)
})
