// buildApp(config): the one Fastify instance, with its plugins in boot order.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type pino from 'pino'
import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts'
import type { Config } from '../core/config.ts'
import { createLogger } from '../core/logger.ts'
import { RouteNotFoundError } from '../core/errors.ts'
import { PACKAGE_VERSION } from '../core/version.ts'
import { redactUrl } from '../core/api-keys/redact.ts'
import { sendError } from './send-error.ts'
import { lazyRequestLogger } from './request-log.ts'
import { createFrontDoor } from './front-door.ts'
import apiDocs from './api-docs/index.ts'
import db from './db/index.ts'
import geth from './geth/index.ts'
import rpcProxy from './rpc-proxy/index.ts'
import health from './health/index.ts'
import network from './network/index.ts'
import indexer from './indexer/index.ts'
import nftMetadata from './nft-metadata/index.ts'
import rest from './rest/index.ts'
import interpreter from './interpreter/index.ts'
import stats from './stats/index.ts'
import graphqlDisabled from './graphql/disabled.ts'
import { closeResources, openResources, type AppResources } from './resources.ts'
import auth from './auth/index.ts'
import rateLimit from './rate-limit/index.ts'
import cors from './cors/index.ts'
import connections from './connections/index.ts'
import websocket from './websocket/index.ts'
import socket from './socket/index.ts'
import rpcWebsocket from './rpc-websocket/index.ts'
import etherscan from './etherscan/index.ts'
import metrics from './metrics/index.ts'
import faucet from './faucet/index.ts'
import verify from './verify/index.ts'
import httpCache from './http-cache/index.ts'
import addressNames from './address-names/index.ts'

export type BuildAppOptions = {
  logger?: pino.Logger
  /** The database and node, when the caller prepared them (scripts/start.ts does, so SIGINT can end a first build); the app owns them from here. */
  resources?: AppResources
}

/** Node looks for requests past their time every 30 s by default; more often when the limit is short. */
const MAX_TIMEOUT_CHECK_INTERVAL_MS = 30_000

/** Prepares the database and the node (however long that takes), then builds the app over them. */
export async function buildApp (config: Config, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const logger = options.logger ?? createLogger({ level: config.logLevel })
  const resources = options.resources ?? await openResources(config, { log: logger })
  try {
    return await buildAppOn(config, logger, resources)
  } catch (err) {
    await closeResources(resources)
    throw err
  }
}

async function buildAppOn (config: Config, logger: pino.Logger, resources: AppResources): Promise<FastifyInstance> {
  const frontDoor = createFrontDoor()
  const logsRequests = logger.isLevelEnabled('debug')
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Per-request info logs cost more than a proxied eth_blockNumber: requests are logged at debug below.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
    // Fastify turns Node's request timeout off; a client trickling a body would hold its socket for good.
    requestTimeout: config.http.requestTimeoutMs,
    http: {
      // Also a new connection's deadline for its first request's headers: one that sends nothing is closed then,
      // not held until the request timeout (1,000 idle sockets held every connection for 30 s that way).
      headersTimeout: config.http.headersTimeoutMs,
      // Overdue connections are closed within a quarter of the shorter limit.
      connectionsCheckingInterval: Math.min(MAX_TIMEOUT_CHECK_INTERVAL_MS, Math.ceil(config.http.headersTimeoutMs / 4))
    },
    // X-Forwarded-For is believed only from these proxies (TRUST_PROXY): the rate limiter counts request.ip.
    trustProxy: config.trustProxy.length > 0 ? [...config.trustProxy] : false,
    // request.log binds the request id when first written to: a pino child made
    // for every request cost as much as the proxy's own work on a cheap call.
    childLoggerFactory: lazyRequestLogger,
    // As Blockscout: /api/v2/addresses/ is /api/v2/addresses (the front end's Top accounts page asks it so).
    routerOptions: { ignoreTrailingSlash: true },
    // Its server lets the JSON-RPC endpoint's fast path answer ahead of the router (plugins/rpc-proxy/fast-path.ts).
    serverFactory: frontDoor.serverFactory
  // Every route's request types come from its schema (plugins/app.ts).
  }).withTypeProvider<JsonSchemaToTsProvider>()
  // Node closes connections beyond this at once, before any byte is read.
  app.server.maxConnections = config.http.maxConnections
  app.decorate('frontDoor', frontDoor)
  // Checked first: building the log record costs more than a proxied eth_blockNumber.
  if (logsRequests) {
    app.addHook('onResponse', async (request, reply) => {
      request.log.debug({ method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: reply.elapsedTime }, 'request')
    })
  }
  // Coded errors (core/errors.ts) keep their status, code and message, a 5xx included (the faucet's 503s); others are a bare 500.
  app.setErrorHandler(async (error, request, reply) => await sendError(request, reply, 'gateway', error))
  app.setNotFoundHandler(async (request, reply) => {
    const error = new RouteNotFoundError(request.method, request.url.split('?')[0]!.slice(0, 200))
    return await sendError(request, reply, 'gateway', error)
  })

  await app.register(connections, { maxPerAddress: config.http.maxConnectionsPerAddress, trustProxy: config.trustProxy })
  // First of the routes' plugins: a preflight is answered before any route or not-found handler sees it.
  await app.register(cors, config.cors)
  await app.register(apiDocs, { version: PACKAGE_VERSION })
  await app.register(db, { database: resources.database })
  // Before every route they guard: their hooks apply to routes added after them.
  await app.register(auth, config.auth)
  await app.register(rateLimit, config.rateLimit)
  await app.register(geth, { node: resources.node })
  await app.register(indexer, config.indexer)
  // Before the routes it times (its onRoute hook sees only routes added after it).
  await app.register(metrics, { ...config.metrics, adminToken: config.auth.adminToken, chainId: config.chainId })
  // The fast path skips this log's hook, and knows only the socket's address (TRUST_PROXY's clients are counted by X-Forwarded-For).
  const fastPath = !logsRequests && config.trustProxy.length === 0
  await app.register(rpcProxy, { ...config.rpcProxy, chainId: config.chainId, cors: config.cors, fastPath })
  await app.register(nftMetadata, config.nftMetadata)
  await app.register(websocket)
  await app.register(verify, config.verify)
  await app.register(interpreter, { coinSymbol: config.stats.coinSymbol })
  await app.register(addressNames)
  await app.register(rpcWebsocket, { ...config.rpcWebsocket, timeoutMs: config.rpcProxy.timeoutMs })
  // Before the routes it caches (its onRoute hook sees only routes added after it).
  await app.register(httpCache, config.httpCache)
  await app.register(rest)
  await app.register(etherscan)
  await app.register(faucet, { ...config.faucet, chainId: config.chainId })
  await app.register(stats, config.stats)
  // Imported only when on: an instance with GraphQL off loads none of it.
  if (config.graphql.enabled) await app.register((await import('./graphql/index.ts')).default, config.graphql)
  else await app.register(graphqlDisabled)
  await app.register(socket, config.socket)
  await app.register(health, { chainId: config.chainId, cliquePeriod: config.geth.cliquePeriod })
  await app.register(network, { chainId: config.chainId })
  return app
}
