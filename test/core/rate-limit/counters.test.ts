// The Redis-backed counters of two instances (two stores on one redis-server
// of the test's own): budget is reserved in slices of 1 % of the limit and
// spent locally (leases.ts). Together they never admit more than the limit,
// lose at most two slices each to reservations left unspent, and most
// requests cost no round trip.
import t from 'tap'
import pino from 'pino'
import { Redis } from 'ioredis'
import { setTimeout as sleep } from 'node:timers/promises'
import { COUNTER_KEY_PREFIX, createCounterStore, type CounterStore } from '../../../core/rate-limit/counters.ts'
import { LEASE_AHEAD_MS, LEASE_SHARE, MAX_LEASE, leaseSize } from '../../../core/rate-limit/leases.ts'
import { startTestRedis } from '../../support/redis.ts'

const WINDOW_MS = 60_000
const redis = await startTestRedis(t)
const log = pino({ level: 'silent' })
const a = createCounterStore({ redisUrl: redis.url, log })
const b = createCounterStore({ redisUrl: redis.url, log })
t.teardown(async () => { await a.close(); await b.close() })
const client = new Redis(redis.url)
t.teardown(() => client.disconnect())
const deadline = Date.now() + 5000
while ((a.backend() !== 'redis' || b.backend() !== 'redis') && Date.now() < deadline) await sleep(20)

/** Scripts Redis has run (one per reservation). */
async function scriptCalls (): Promise<number> {
  const stats = await client.info('commandstats')
  return [...stats.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0)
}

/** The client's shared count in Redis, once it reaches `count` (every instance's reservations): false if it does not within 2 s. */
async function sharedCountReaches (key: string, count: number): Promise<boolean> {
  const until = Date.now() + 2000
  while (Number(await client.get(COUNTER_KEY_PREFIX + key)) !== count) {
    if (Date.now() > until) return false
    await sleep(5)
  }
  return true
}

/** Requests of one each, from a and b in turn, until both refuse: how many were admitted. */
async function spendAlternately (key: string, limit: number, attempts: number): Promise<number> {
  let admitted = 0
  for (let i = 0; i < attempts; i++) {
    const store: CounterStore = i % 2 === 0 ? a : b
    const { count } = await store.incr(key, 1, WINDOW_MS, limit)
    if (count <= limit) admitted++
  }
  return admitted
}

t.test('slices are 1 % of the limit, at least the cost, at most MAX_LEASE', async (t) => {
  t.equal(leaseSize(100, 1), 1, 'the public tier: request by request')
  t.equal(leaseSize(1000, 1), 1000 * LEASE_SHARE)
  t.equal(leaseSize(1000, 20), 20, 'a batch reserves its own cost')
  t.equal(leaseSize(2_000_000_000, 1), MAX_LEASE)
})

t.test('two instances on one Redis never admit more than the limit together, and lose at most two slices each', async (t) => {
  const limit = 1000
  const before = await scriptCalls()
  const admitted = await spendAlternately(`test:${Date.now()}:lease`, limit, 2 * limit + 200)
  const calls = await scriptCalls() - before
  const slice = leaseSize(limit, 1)
  t.ok(admitted <= limit, `${admitted} admitted of a limit of ${limit}`)
  t.ok(admitted >= limit - 2 * 2 * slice, `${admitted} admitted: at most 2 slices of ${slice} per instance unspent`)
  t.ok(calls <= (limit / slice) + 20, `${calls} reservations in Redis for ${2 * limit + 200} requests: one a slice, none once the budget is gone`)
})

t.test('a limit under 100 is counted in Redis request by request: exactly', async (t) => {
  const limit = 7
  t.equal(await spendAlternately(`test:${Date.now()}:exact`, limit, 20), limit)
  const { count } = await b.incr(`test:${Date.now()}:exact-b`, 3, WINDOW_MS, limit)
  t.equal(count, 3, 'a batch of 3 is 3')
})

t.test('the count each instance reports is the shared one: what the others reserved counts as spent', async (t) => {
  const key = `test:${Date.now()}:shared`
  const limit = 1000
  const slice = leaseSize(limit, 1)
  const first = await a.incr(key, 1, WINDOW_MS, limit)
  t.equal(first.count, 1)
  t.ok(await sharedCountReaches(key, 2 * slice), 'a reserved its next slice as soon as less than a whole one was left')
  const onB = await b.incr(key, 1, WINDOW_MS, limit)
  t.equal(onB.count, 2 * slice + 1, 'a\'s two slices are spent as far as b can tell')
  t.ok(onB.ttlMs > 0 && onB.ttlMs <= WINDOW_MS)
})

t.test('a busy client has a whole slice reserved ahead: twice a slice less one is admitted without waiting for Redis', async (t) => {
  const key = `test:${Date.now()}:ahead`
  // 1 % of it is MAX_LEASE: slices stay that size however fast the client goes.
  const limit = MAX_LEASE / LEASE_SHARE
  const slice = leaseSize(limit, 1, 1000)
  t.equal(slice, MAX_LEASE)
  await a.incr(key, 1, WINDOW_MS, limit)
  // The slice the first request waited for, and the one reserved ahead of it as soon as it was spent from.
  t.ok(await sharedCountReaches(key, 2 * slice), 'two slices reserved')
  await sleep(20)
  let waited = 0
  for (let i = 0; i < 2 * slice - 1; i++) if (a.incr(key, 1, WINDOW_MS, limit) instanceof Promise) waited++
  t.equal(waited, 0, `${2 * slice - 1} requests, none waited for a round trip`)
  const next = a.incr(key, 1, WINDOW_MS, limit)
  t.ok(next instanceof Promise, 'the next waits for the slice reserved meanwhile: never more than two slices held')
  t.equal((await next).count, 2 * slice + 1)
  t.ok(await sharedCountReaches(key, 4 * slice), 'the slice after is reserved as soon as the third is spent from')
})

t.test('a client spending more than MAX_LEASE in LEASE_AHEAD_MS here gets slices of what it spends in that time, at most 1 % of its limit', async (t) => {
  const key = `test:${Date.now()}:pace`
  const limit = 1_000_000_000
  t.equal(leaseSize(limit, 1), MAX_LEASE, 'a client of unknown pace: MAX_LEASE')
  t.equal(leaseSize(limit, 1, 10), 10 * LEASE_AHEAD_MS, '10 requests a millisecond: what it spends in LEASE_AHEAD_MS')
  t.equal(leaseSize(1_000_000, 1, 1000), 1_000_000 * LEASE_SHARE, 'never more than 1 % of the limit')
  t.equal(leaseSize(1000, 1, 1000), 1000 * LEASE_SHARE, 'a limit of 1,000: slices of 10 however fast')
  t.equal(leaseSize(100, 1, 1000), 1, 'the public tier: request by request however fast')
  const beforeMs = Date.now()
  await a.incr(key, 1, WINDOW_MS, limit)
  t.ok(await sharedCountReaches(key, 2 * MAX_LEASE), 'the first two slices, of a client of unknown pace: MAX_LEASE each')
  await sleep(5)
  // The third slice is asked for at the 100th of these, between 5 and elapsedMs after the second.
  let waited = 0
  for (let i = 0; i < 2 * MAX_LEASE - 1; i++) if (a.incr(key, 1, WINDOW_MS, limit) instanceof Promise) waited++
  const elapsedMs = Date.now() - beforeMs
  t.equal(waited, 0, 'two slices spent without waiting')
  const fastest = leaseSize(limit, 1, MAX_LEASE / 5)
  const slowest = leaseSize(limit, 1, MAX_LEASE / elapsedMs)
  const deadline = Date.now() + 2000
  let third = 0
  while ((third = Number(await client.get(COUNTER_KEY_PREFIX + key)) - 2 * MAX_LEASE) === 0 && Date.now() < deadline) await sleep(5)
  t.ok(third >= slowest && third <= fastest, `${MAX_LEASE} requests in at most ${elapsedMs} ms: a third slice of ${third}, between ${slowest} and ${fastest}`)
})

t.test('incrNow answers what needs no waiting and counts nothing when it would have to wait', async (t) => {
  const key = `test:${Date.now()}:now`
  const limit = MAX_LEASE / LEASE_SHARE
  t.equal(a.incrNow(key, 1, WINDOW_MS, limit), undefined, 'a client without a lease here: Redis must be asked')
  t.equal(await client.get(COUNTER_KEY_PREFIX + key), null, 'and nothing was reserved for it')
  t.equal((await a.incr(key, 1, WINDOW_MS, limit)).count, 1, 'incr waits for the first slice')
  t.same(a.incrNow(key, 1, WINDOW_MS, limit)?.count, 2, 'the lease answers the next at once')
  t.equal(a.incrNow(`test:${Date.now()}:exact-now`, 1, WINDOW_MS, 7), undefined, 'a limit counted exactly always waits for Redis')
  const memory = createCounterStore({ redisUrl: undefined, log })
  t.teardown(async () => await memory.close())
  t.same(memory.incrNow(key, 3, WINDOW_MS, limit), { count: 3, ttlMs: WINDOW_MS }, 'in memory: always at once')
})
