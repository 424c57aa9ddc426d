import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions, onResponseHookHandler } from 'fastify'
import type { Config } from '../../core/config.ts'
import { createMetrics, type Metrics } from '../../core/metrics/index.ts'
import type { BuildInfo } from '../../core/metrics/source-gauges.ts'
import { createMetricsAccess } from '../../core/metrics/access.ts'
import { MetricsForbiddenError } from '../../core/errors.ts'
import { GRAPHQL_ROUTE, operationTypeOf } from './graphql-operation.ts'
import { countWebsockets, type OpenWebsockets } from './websocket-connections.ts'
import { cachedFor } from '../../core/metrics/cached.ts'
import { pingDatabase } from '../../core/db/index.ts'
import { PACKAGE_VERSION } from '../../core/version.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Counters and histograms others record into (rate limiting, the faucet); always present, served only when enabled. */
    metrics: Metrics
  }
}

export type MetricsPluginOptions = Config['metrics'] & { adminToken: string | undefined, chainId: number }

export const METRICS_PATH = '/metrics'
/** JSON-RPC routes time themselves per method (core/json-rpc/handler.ts). */
const JSON_RPC_ROUTES = new Set(['/', '/rpc'])
/** /metrics reads the head three times (up, number and age): one eth_getBlockByNumber serves them. */
const HEAD_CACHE_MS = 500
/** However many scrapers: the database is pinged at most once a second. */
const DATABASE_PING_CACHE_MS = 1000
/** Geth's version changes only with its binary, and the supervisor restarts it then. */
const GETH_VERSION_CACHE_MS = 60_000
const PROBE_TIMEOUT_MS = 2000

/**
 * Prometheus metrics at GET /metrics. Registered before the routes it times:
 * its onRoute hook gives each REST and GraphQL route an onResponse hook of its
 * own, so routes it does not time (JSON-RPC, timed per method by its handler)
 * pay nothing.
 */
async function metrics (app: FastifyInstance, options: MetricsPluginOptions): Promise<void> {
  const metrics = createMetrics({ enabled: options.enabled })
  app.decorate('metrics', metrics)
  const websockets: OpenWebsockets = new Map()
  metrics.setSources({
    gethHead: cachedFor(HEAD_CACHE_MS, async () => await readHead(app)),
    gethRestarts: () => app.geth.supervisor?.restarts ?? 0,
    databaseUp: cachedFor(DATABASE_PING_CACHE_MS, async () => await pingDatabase(app.db.knex, PROBE_TIMEOUT_MS)),
    indexer: () => app.indexer.status(),
    databasePools: () => databasePools(app),
    websocketConnections: () => websockets.entries(),
    httpConnections: async () => await new Promise((resolve) => app.server.getConnections((err, count) => resolve(err === null ? count : 0))),
    buildInfo: buildInfo(app, options.chainId)
  })
  // Counted where they were stored: every instance hears every block.
  const stopCounting = app.indexer.events.subscribe((event) => {
    if (event.type === 'block' && event.storedHere) metrics.recordIndexedBlocks(event.blocks.length)
  })
  app.addHook('onClose', async () => stopCounting())
  if (!options.enabled) return
  app.addHook('onRoute', (route) => {
    timeRoute(route, metrics)
    countWebsockets(route, websockets)
  })
  const access = createMetricsAccess({ allow: options.allow, adminToken: options.adminToken })
  app.get(METRICS_PATH, {
    schema: { hide: true },
    onRequest: async (request) => {
      if (!access.isAllowed(request.ip, request.headers.authorization)) throw new MetricsForbiddenError(request.ip)
    }
  }, async (_request, reply) => {
    const { contentType, text } = await metrics.scrape()
    return await reply.type(contentType).send(text)
  })
}

function timeRoute (route: RouteOptions, metrics: Metrics): void {
  const url = route.url
  if (JSON_RPC_ROUTES.has(url) || url === METRICS_PATH) return
  const hook: onResponseHookHandler = GRAPHQL_ROUTE.test(url)
    ? async (request: FastifyRequest, reply: FastifyReply) => metrics.observeGraphql(operationTypeOf(request), reply.statusCode, reply.elapsedTime / 1000)
    : async (_request: FastifyRequest, reply: FastifyReply) => metrics.observeHttp(url.startsWith('/api/') ? 'rest' : 'http', url, reply.statusCode, reply.elapsedTime / 1000)
  route.onResponse = route.onResponse === undefined ? [hook] : [...[route.onResponse].flat(), hook]
}

/** The local node's head (never an upstream's): undefined when it does not answer. */
async function readHead (app: FastifyInstance): Promise<{ number: number, timestamp: number } | undefined> {
  return await app.geth.rpc.call<{ number: string, timestamp: string }>('eth_getBlockByNumber', ['latest', false], AbortSignal.timeout(PROBE_TIMEOUT_MS))
    .then((b) => ({ number: Number(b.number), timestamp: Number(b.timestamp) }), () => undefined)
}

/** Geth's version from web3_clientVersion (Geth/v1.13.15-stable-c5ba367e/linux-amd64/go1.21.6 gives v1.13.15-stable-c5ba367e); `unknown` while it does not answer. */
function buildInfo (app: FastifyInstance, chainId: number): () => Promise<BuildInfo> {
  const gethVersion = cachedFor(GETH_VERSION_CACHE_MS, async () =>
    await app.geth.rpc.call<string>('web3_clientVersion', [], AbortSignal.timeout(PROBE_TIMEOUT_MS)).then((v) => v.split('/')[1] ?? v, () => undefined))
  return async () => ({ version: PACKAGE_VERSION, chainId, gethVersion: await gethVersion() ?? 'unknown', nodeVersion: process.version })
}

type TarnPool = { numUsed (): number, numFree (): number, numPendingAcquires (): number, max: number }

function databasePools (app: FastifyInstance): Array<{ pool: string, used: number, idle: number, pending: number, max: number }> {
  const knexPool = (app.db.knex.client as { pool?: TarnPool }).pool
  const prepared = app.db.prepared
  const pools = [{ pool: 'prepared', used: prepared.totalCount - prepared.idleCount, idle: prepared.idleCount, pending: prepared.waitingCount, max: prepared.options.max ?? 0 }]
  if (knexPool !== undefined) pools.push({ pool: 'knex', used: knexPool.numUsed(), idle: knexPool.numFree(), pending: knexPool.numPendingAcquires(), max: knexPool.max })
  return pools
}

export default fp(metrics, { name: 'metrics', fastify: '5.x', dependencies: ['db', 'geth', 'indexer'] })
