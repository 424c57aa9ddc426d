// The read-at-most-once-per-period cache behind the stats endpoints.
import t from 'tap'
import { createRefreshing } from '../../../core/stats/refreshing.ts'

t.test('reads once per period, shares a read under way, and keeps no failure', async (t) => {
  let clock = 1000
  let reads = 0
  let fail = false
  const value = createRefreshing(async () => {
    reads++
    await new Promise((resolve) => setImmediate(resolve))
    if (fail) throw new Error('database down')
    return reads
  }, 5000, () => clock)

  t.equal(value.dueInMs(), 0, 'nothing read yet: due now')
  const [a, b] = await Promise.all([value.get(), value.get()])
  t.equal(reads, 1, 'callers arriving together share one read')
  t.same([a.value, b.value], [1, 1])
  t.equal(a.computedAtMs, 1000)

  clock += 4999
  t.equal((await value.get()).value, 1, 'within the period: the same value')
  t.equal(value.dueInMs(), 1)
  clock += 1
  t.equal((await value.get()).value, 2, 'the period over: read again')
  t.equal(value.dueInMs(), 5000)

  clock += 5000
  fail = true
  await t.rejects(value.get(), /database down/)
  fail = false
  t.equal((await value.get()).value, 4, 'a failed read is not kept: the next call reads')
})
