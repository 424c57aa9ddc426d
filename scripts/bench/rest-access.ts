// bench:rest's access-layer runs: one REST route through three servers on the
// benchmark's database that differ only in the access layer (plugins/auth,
// plugins/rate-limit): limits off and no key; limits on with a premium key
// (header x-api-key) counted in memory; and counted in Redis when one answers.
// The rounds and ratios are bench:rpc's (../access.ts).
import { createApiKey } from '../../core/api-keys/store.ts'
import type { Database } from '../../core/db/index.ts'
import type { RateLimitOptions } from '../../plugins/rate-limit/index.ts'
import { BENCH_KEY_LIMIT_PER_MIN, benchRedisUrl, countsInRedis, type AccessInstance } from './access.ts'
import { startRestServer } from './rest/server.ts'

export type RestAccessInstance = AccessInstance & { headers: Record<string, string> }
export type RestAccessInstances = { instances: RestAccessInstance[], skipped: string[], close (): Promise<void> }

/** The tiers' defaults: the premium key carries its own, far higher limit. */
const LIMITS = { publicPerMin: 100, premiumPerMin: 1000, traceWeight: 10, explorerOrigins: [], explorerPerMin: 600 }

export async function startRestAccessServers (database: Database): Promise<RestAccessInstances> {
  const redisUrl = benchRedisUrl()
  const { key, listing } = await createApiKey(database.knex, { label: 'bench-rest', tier: 'premium', limitPerMin: BENCH_KEY_LIMIT_PER_MIN })
  // Last in, first out. The benchmark's database is kept between runs: the key (and its usage) goes after the servers.
  const closers: Array<() => Promise<unknown>> = [async () => await database.knex('api_keys').where('id', listing.id).delete()]
  const close = async (): Promise<void> => { for (const closer of closers.reverse()) await closer().catch(() => {}) }
  const instances: RestAccessInstance[] = []
  const skipped: string[] = []
  try {
    for (const variant of ['off', 'memory', 'redis'] as const) {
      const options: RateLimitOptions = { ...LIMITS, enabled: variant !== 'off', redisUrl: variant === 'redis' ? redisUrl : undefined }
      const server = await startRestServer(database, options)
      closers.push(server.close)
      if (variant === 'redis' && !await countsInRedis(server.app)) { skipped.push(`redis: none answers at ${redisUrl}`); continue }
      instances.push({ variant, url: server.url, headers: variant === 'off' ? {} : { 'x-api-key': key } })
    }
  } catch (err) {
    await close()
    throw err
  }
  return { instances, skipped, close }
}
