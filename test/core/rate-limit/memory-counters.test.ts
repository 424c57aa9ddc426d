import t from 'tap'
import { createMemoryCounters } from '../../../core/rate-limit/memory-counters.ts'

t.test('memory counters add the cost within a window and start again after it', async (t) => {
  const counters = createMemoryCounters()
  t.same(counters.incr('k', 20, 50).count, 20)
  t.same(counters.incr('k', 1, 50).count, 21)
  t.equal(counters.incr('other', 1, 50).count, 1)
  await new Promise((resolve) => setTimeout(resolve, 60))
  const fresh = counters.incr('k', 1, 50)
  t.equal(fresh.count, 1)
  t.ok(fresh.ttlMs > 0 && fresh.ttlMs <= 50)
})
