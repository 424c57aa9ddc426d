// Two gateway instances on one PostgreSQL and the machine's Redis: one budget
// per client between them, and a key revoked on one refused by the other
// within a second.
import t from 'tap'
import { randomInt } from 'node:crypto'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { build } from '../../helper.ts'
import { MACHINE_REDIS_URL, redisAnswers } from '../../support/redis.ts'
import { buildSecondInstance } from '../../support/second-instance.ts'
import { createApiKey, revokeApiKeys } from '../../../core/api-keys/store.ts'
import { leaseSize } from '../../../core/rate-limit/leases.ts'

const PUBLIC = 6
const hasRedis = await redisAnswers(MACHINE_REDIS_URL)
if (!hasRedis) t.comment(`no Redis answers at ${MACHINE_REDIS_URL}: the shared budget is not tested, only revocation`)

const first = await build(t, { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PUBLIC_PER_MIN: String(PUBLIC), ...(hasRedis ? { REDIS_URL: MACHINE_REDIS_URL } : {}) })
const a = first.app
// b believes X-Forwarded-For from the loopback proxy; a believes nobody.
const b = await buildSecondInstance(t, first, { TRUST_PROXY: '127.0.0.1' })

// Counters in the machine's Redis outlive the test by a minute: addresses of this run only.
const run = randomInt(0, 250)
let next = 1
const newAddress = (): string => `10.${run}.${Math.floor(next / 250)}.${(next++ % 250) + 1}`
// A key is counted by its id, and every run's scratch database numbers keys from 1: ids of this run only.
await a.db.knex.raw(`alter table api_keys alter column id restart with ${randomInt(1_000_000, 2 ** 40)}`)
const get = (app: FastifyInstance, extra: Partial<InjectOptions>) => app.inject({ method: 'GET', url: '/api/v2/main-page/indexing-status', ...extra } as InjectOptions)

t.test('two instances on one Redis spend one budget per client', { skip: hasRedis ? false : 'no Redis at 127.0.0.1:6379' }, async (t) => {
  t.equal(a.accessBudget.backend(), 'redis')
  t.equal(b.accessBudget.backend(), 'redis')
  const remoteAddress = newAddress()
  for (let i = 0; i < PUBLIC / 2; i++) {
    t.equal((await get(a, { remoteAddress })).statusCode, 200)
    const onB = await get(b, { remoteAddress })
    t.equal(onB.statusCode, 200)
    t.equal(onB.headers['x-ratelimit-remaining'], String(PUBLIC - 2 * (i + 1)), 'b sees what a spent')
  }
  t.equal((await get(a, { remoteAddress })).statusCode, 429)
  t.equal((await get(b, { remoteAddress })).statusCode, 429)
  const batch = await b.inject({ method: 'POST', url: '/rpc', remoteAddress, payload: JSON.stringify([{ jsonrpc: '2.0', id: 9, method: 'eth_chainId' }]) })
  t.equal(batch.statusCode, 429)
  t.same(batch.json(), [{ jsonrpc: '2.0', id: 9, error: { code: -32005, message: 'Limit exceeded', data: 'Too many requests' } }])
})

t.test('a premium key\'s budget, reserved in slices, is one across instances and interfaces', { skip: hasRedis ? false : 'no Redis at 127.0.0.1:6379' }, async (t) => {
  // 400 a minute: slices of 4 (1 %), spent locally between round trips to Redis.
  const limit = 400
  const slice = leaseSize(limit, 1)
  t.ok(slice > 1, `slices of ${slice}`)
  const { key } = await createApiKey(a.db.knex, { label: `leased ${run}`, tier: 'premium', limitPerMin: limit })
  const headers = { 'x-api-key': key }
  let admitted = 0
  let refusedInARow = 0
  for (let i = 0; i < 2 * limit && refusedInARow < 4; i++) {
    // REST on a, JSON-RPC on b: one budget.
    const response = i % 2 === 0
      ? await get(a, { headers, remoteAddress: newAddress() })
      : await b.inject({ method: 'POST', url: '/rpc', headers: { ...headers, 'content-type': 'application/json' }, remoteAddress: newAddress(), payload: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] }) })
    t.equal(response.headers['x-ratelimit-limit'], String(limit))
    if (response.statusCode === 200) {
      admitted++
      refusedInARow = 0
    } else {
      t.equal(response.statusCode, 429)
      refusedInARow++
    }
  }
  t.ok(admitted <= limit, `${admitted} admitted of ${limit}: never more than the limit together`)
  t.ok(admitted >= limit - 2 * 2 * slice, `${admitted} admitted: at most two slices of ${slice} per instance unspent`)
})

t.test('a key revoked on one instance is refused by the other within 1 second', async (t) => {
  const { key, listing } = await createApiKey(a.db.knex, { label: 'revoked across', tier: 'premium' })
  const send = async () => await b.inject({ method: 'GET', url: '/api/v2/main-page/indexing-status', headers: { 'x-api-key': key }, remoteAddress: newAddress() })
  t.equal((await send()).statusCode, 200, 'b serves the key (and caches it)')
  t.equal((await send()).statusCode, 200)
  await revokeApiKeys(a.db.knex, listing.id)
  const revokedAt = Date.now()
  let status = 200
  while (status === 200 && Date.now() - revokedAt < 1000) status = (await send()).statusCode
  const elapsedMs = Date.now() - revokedAt
  t.equal(status, 401, `refused by b after ${elapsedMs} ms`)
  t.ok(elapsedMs < 1000)
})

t.test('X-Forwarded-For is believed from a trusted proxy only', async (t) => {
  const spoofed = Array.from({ length: PUBLIC + 1 }, () => newAddress())
  // a trusts no proxy: the loopback peer spends its own budget whatever it claims.
  const peer = newAddress()
  const onA = []
  for (const claimed of spoofed) onA.push((await get(a, { remoteAddress: peer, headers: { 'x-forwarded-for': claimed } })).statusCode)
  t.equal(onA.at(-1), 429, 'spoofing from an untrusted peer buys nothing')
  // b trusts 127.0.0.1: each forwarded client has its own budget.
  for (const claimed of spoofed) {
    t.equal((await get(b, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': claimed } })).statusCode, 200, `b counts ${claimed} on its own`)
  }
  const client = newAddress()
  for (let i = 0; i < PUBLIC; i++) await get(b, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': client } })
  t.equal((await get(b, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': client } })).statusCode, 429, 'the forwarded client is held to its limit')
})
