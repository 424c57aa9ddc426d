// Redis stopped mid-test (a redis-server of the test's own): both instances
// keep answering and hold the limit each in its own memory, then share one
// budget again once Redis is back.
import t, { type Test } from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import { build } from '../../helper.ts'
import { startTestRedis } from '../../support/redis.ts'
import { buildSecondInstance } from '../../support/second-instance.ts'

const PUBLIC = 4
const redis = await startTestRedis(t)
const first = await build(t, { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PUBLIC_PER_MIN: String(PUBLIC), REDIS_URL: redis.url })
const a = first.app
const b = await buildSecondInstance(t, first)

let next = 1
const newAddress = (): string => `10.77.0.${next++}`
const status = async (app: FastifyInstance, remoteAddress: string): Promise<number> =>
  (await app.inject({ method: 'GET', url: '/api/v2/main-page/indexing-status', remoteAddress })).statusCode

async function waitForBackend (backend: 'redis' | 'memory'): Promise<void> {
  const deadline = Date.now() + 10_000
  while (a.accessBudget.backend() !== backend || b.accessBudget.backend() !== backend) {
    if (Date.now() > deadline) throw new Error(`the instances count in ${a.accessBudget.backend()} and ${b.accessBudget.backend()}, not ${backend}`)
    await sleep(50)
  }
}

/** Half the budget on each instance; the next request on either is over only if they share it. */
async function checkShared (t: Test): Promise<void> {
  const address = newAddress()
  for (let i = 0; i < PUBLIC / 2; i++) {
    t.equal(await status(a, address), 200)
    t.equal(await status(b, address), 200)
  }
  t.equal(await status(a, address), 429, 'a refuses what b spent')
  t.equal(await status(b, address), 429, 'b refuses what a spent')
}

t.test('with Redis up, the instances share one budget', async (t) => {
  await waitForBackend('redis')
  await checkShared(t)
})

t.test('Redis stopped: requests keep being answered and each instance holds the limit on its own', async (t) => {
  await redis.stop()
  const address = newAddress()
  // The first request after the loss may be the one that finds it: answered all the same.
  for (let i = 0; i < PUBLIC; i++) t.equal(await status(a, address), 200, `a: request ${i + 1}`)
  t.equal(await status(a, address), 429, 'a holds the limit in memory')
  t.equal(a.accessBudget.backend(), 'memory')
  for (let i = 0; i < PUBLIC; i++) t.equal(await status(b, address), 200, `b: request ${i + 1} (its own memory)`)
  t.equal(await status(b, address), 429, 'b holds the limit in memory')
})

t.test('Redis back: sharing resumes', async (t) => {
  await redis.start()
  await waitForBackend('redis')
  await checkShared(t)
})
