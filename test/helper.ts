// build(t, env): the whole gateway on a fresh chain and database, closed on teardown.
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import { loadConfig, type Config } from '../core/config.ts'
import { buildApp } from '../plugins/index.ts'
import { createTestDatabase } from './support/database.ts'
import { createTestChainFiles, type TestChainFiles } from './support/chain.ts'

type Tap = { teardown (fn: () => unknown): void }

export type TestApp = { app: FastifyInstance, config: Config, chain: TestChainFiles, url: string }

/**
 * Test config: the machine's environment (PATH, GETH_CACHE_DIR...) plus a throwaway chain and database.
 * Rate limits are off unless a test turns them on: test files send hundreds of requests from 127.0.0.1.
 */
export async function buildTestConfig (t: Tap, env: Record<string, string> = {}): Promise<{ config: Config, chain: TestChainFiles }> {
  const chain = await createTestChainFiles(t)
  const databaseUrl = await createTestDatabase(t)
  return { config: testConfig(chain, databaseUrl, env), chain }
}

/** The test config of a chain and database made beforehand (a fixture template or its clone). */
export function testConfig (chain: TestChainFiles, databaseUrl: string, env: Record<string, string> = {}): Config {
  // SOLC_DOWNLOAD is on by default: tests never reach the internet unless they point it at a local site.
  return loadConfig({ ...process.env, DATABASE_URL: databaseUrl, RATE_LIMIT_ENABLED: 'false', SOLC_DOWNLOAD: 'false', ...chain.env, ...env })
}

/** Builds the app and listens on a free loopback port (ethers and fetch need a real socket). */
export async function build (t: Tap, env: Record<string, string> = {}): Promise<TestApp> {
  return await buildOn(t, await buildTestConfig(t, env))
}

/** build() on a config and chain made beforehand (see testConfig). */
export async function buildOn (t: Tap, { config, chain }: { config: Config, chain: TestChainFiles }): Promise<TestApp> {
  const app = await buildApp(config, { logger: pino({ level: config.logLevel }) })
  t.teardown(async () => await app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  return { app, config, chain, url: `http://127.0.0.1:${port}` }
}

/** POSTs a JSON-RPC body (object or raw text) and returns status and parsed JSON. */
export async function postRpc (url: string, body: unknown, path = '/rpc'): Promise<{ status: number, json: any }> {
  const response = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body)
  })
  const text = await response.text()
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) }
}
