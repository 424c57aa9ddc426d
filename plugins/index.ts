// buildApp(config): the one Fastify instance, with its plugins in boot order.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify'
import type pino from 'pino'
import type { Config } from '../core/config.ts'
import { createLogger } from '../core/logger.ts'
import { RouteNotFoundError } from '../core/errors.ts'
import { PACKAGE_VERSION } from '../core/version.ts'
import apiDocs from './api-docs/index.ts'
import db from './db/index.ts'
import geth from './geth/index.ts'
import rpcProxy from './rpc-proxy/index.ts'
import health from './health/index.ts'
import indexer from './indexer/index.ts'
import nftMetadata from './nft-metadata/index.ts'
import rest from './rest/index.ts'
import stats from './stats/index.ts'
import graphqlDisabled from './graphql/disabled.ts'
import { closeResources, openResources, type AppResources } from './resources.ts'

export type BuildAppOptions = {
  logger?: pino.Logger
  /** The database and node, when the caller prepared them (scripts/start.ts does, so SIGINT can end a first build); the app owns them from here. */
  resources?: AppResources
}

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
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Per-request info logs cost more than a proxied eth_blockNumber: requests are logged at debug below.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
    // A pino child per request costs as much as the proxy's own work on a
    // cheap call; routes that log pass the request id themselves.
    childLoggerFactory: (parent) => parent
  })
  // Checked first: building the log record costs more than a proxied eth_blockNumber.
  if (logger.isLevelEnabled('debug')) {
    app.addHook('onResponse', async (request, reply) => {
      request.log.debug({ method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime }, 'request')
    })
  }
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500
    if (status >= 500) {
      request.log.error({ err: error, reqId: request.id }, 'request failed')
      return await reply.code(500).send({ statusCode: 500, error: 'Internal Server Error', message: 'Internal server error' })
    }
    return await reply.code(status).send({ statusCode: status, code: error.code, error: error.name, message: error.message })
  })
  app.setNotFoundHandler(async (request, reply) => {
    const error = new RouteNotFoundError(request.method, request.url.split('?')[0]!.slice(0, 200))
    return await reply.code(404).send({ statusCode: 404, code: error.code, error: 'Not Found', message: error.message })
  })

  await app.register(apiDocs, { version: PACKAGE_VERSION })
  await app.register(db, { database: resources.database })
  await app.register(geth, { node: resources.node })
  await app.register(indexer, config.indexer)
  await app.register(rpcProxy, { ...config.rpcProxy, chainId: config.chainId })
  await app.register(nftMetadata, config.nftMetadata)
  await app.register(rest)
  await app.register(stats, config.stats)
  // Imported only when on: an instance with GraphQL off loads none of it.
  if (config.graphql.enabled) await app.register((await import('./graphql/index.ts')).default, config.graphql)
  else await app.register(graphqlDisabled)
  await app.register(health, { chainId: config.chainId, cliquePeriod: config.geth.cliquePeriod })
  return app
}
