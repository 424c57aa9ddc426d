// The read-at-most-once-per-period cache behind the stats endpoints.
import t from 'tap'
import { createRefreshing } from '../../../core/stats/refreshing.ts'

const tick = async () => await new Promise((resolve) => setImmediate(resolve))

t.test('reads once per period, serves the old value while the next read runs, and survives a failed read', async (t) => {
  let clock = 1000
  let reads = 0
  let fail = false
  const errors: unknown[] = []
  const value = createRefreshing(async () => {
    reads++
    await tick()
    if (fail) throw new Error('database down')
    return reads
  }, { maxAgeMs: 5000, now: () => clock, onError: (err) => errors.push(err) })

  t.equal(value.dueInMs(), 0, 'nothing read yet: due now')
  const [a, b] = await Promise.all([value.get(), value.get()])
  t.equal(reads, 1, 'callers arriving together share the first read')
  t.same([a.value, b.value], [1, 1])
  t.equal(a.computedAtMs, 1000)

  clock += 4999
  t.equal((await value.get()).value, 1, 'within the period: the same value')
  t.equal(reads, 1)
  t.equal(value.dueInMs(), 1)

  clock += 1
  const [c, d] = await Promise.all([value.get(), value.get()])
  t.same([c.value, d.value], [1, 1], 'the period over: the old value at once')
  t.equal(reads, 2, 'and one read in the background for both')
  await tick()
  await tick()
  t.equal((await value.get()).value, 2, 'the new value once read')
  t.equal(value.dueInMs(), 5000)

  clock += 5000
  fail = true
  t.equal((await value.get()).value, 2, 'a failing read: the old value')
  await tick()
  await tick()
  t.equal(errors.length, 1, 'the failure is reported')
  fail = false
  t.equal((await value.get()).value, 2, 'still stale: the next caller starts another read')
  await tick()
  await tick()
  t.equal((await value.get()).value, 4)
})

t.test('a failed first read is not kept', async (t) => {
  let fail = true
  const value = createRefreshing(async () => {
    if (fail) throw new Error('database down')
    return 'ok'
  }, { maxAgeMs: 5000 })
  await t.rejects(value.get(), /database down/)
  fail = false
  t.equal((await value.get()).value, 'ok')
})

t.test('peek answers without a promise: nothing before the first read, then the value, starting the next read once stale', async (t) => {
  let clock = 0
  let reads = 0
  const value = createRefreshing(async () => {
    reads++
    await tick()
    return reads
  }, { maxAgeMs: 100, now: () => clock })
  t.equal(value.peek(), undefined, 'no value yet')
  t.equal(reads, 0, 'and peek does not read')
  await value.get()
  t.equal(value.peek()?.value, 1)
  t.equal(reads, 1, 'fresh: no read')
  clock += 100
  t.equal(value.peek()?.value, 1, 'stale: the old value at once')
  t.equal(reads, 2, 'and the next read started')
  await tick()
  await tick()
  t.equal(value.peek()?.value, 2)
})

t.test('with maxServedAgeMs a value that old is never served: after a quiet spell the caller waits for the fresh read', async (t) => {
  let clock = 0
  let reads = 0
  let fail = false
  const value = createRefreshing(async () => {
    reads++
    await tick()
    if (fail) throw new Error('database down')
    return reads
  }, { maxAgeMs: 2500, maxServedAgeMs: 5000, now: () => clock })
  await value.get()
  clock = 3000
  t.equal((await value.get()).value, 1, 'past maxAgeMs, within the bound: served while the next read runs')
  await tick()
  await tick()
  t.equal(value.peek()?.value, 2, 'and the next read is in')
  clock = 3000 + 5000
  t.equal(value.peek(), undefined, 'past the bound: peek has nothing')
  t.equal((await value.get()).value, 3, 'get waits for the fresh read')
  t.equal(reads, 3)
  clock += 6000
  fail = true
  await t.rejects(value.get(), /database down/, 'a failed read past the bound is the caller\'s error, not the old value')
  fail = false
  t.equal((await value.get()).value, 5)
})
