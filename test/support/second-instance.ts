// Another gateway instance on a test app's database and node: what a load
// balancer would have behind it. No Geth of its own (GETH_RPC_URL).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import { loadConfig } from '../../core/config.ts'
import { buildApp } from '../../plugins/index.ts'
import type { TestApp } from '../helper.ts'

type Tap = { teardown (fn: () => unknown): void }

export async function buildSecondInstance (t: Tap, first: TestApp, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-second-'))
  t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: first.config.databaseUrl!,
    GETH_RPC_URL: first.app.geth.rpc.url,
    LOG_LEVEL: first.config.logLevel,
    RATE_LIMIT_ENABLED: String(first.config.rateLimit.enabled),
    RATE_LIMIT_PUBLIC_PER_MIN: String(first.config.rateLimit.publicPerMin),
    RATE_LIMIT_PREMIUM_PER_MIN: String(first.config.rateLimit.premiumPerMin),
    REDIS_URL: first.config.rateLimit.redisUrl ?? '',
    ...env
  })
  const app = await buildApp(config, { logger: pino({ level: config.logLevel }) })
  t.teardown(async () => await app.close())
  await app.ready()
  return app
}
