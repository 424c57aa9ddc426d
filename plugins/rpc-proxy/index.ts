import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createJsonRpcHandler, type JsonRpcHandler } from '../../core/json-rpc/handler.ts'
import { loadDevAccounts } from '../../core/json-rpc/dev-accounts.ts'
import { createSharedLogFilters } from '../../core/json-rpc/shared-log-filters.ts'
import { JsonRpcError, errorResponse } from '../../core/json-rpc/errors.ts'
import type { Config } from '../../core/config.ts'
import { jsonRpcRouteSchema } from './schemas.ts'
import type { Metrics } from '../../core/metrics/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The endpoint's handler, shared by the WebSocket (plugins/rpc-websocket): one allow-list, one set of log filters. */
    jsonRpcHandler: JsonRpcHandler
  }
}

export type RpcProxyOptions = Config['rpcProxy'] & { chainId: number }

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** The public JSON-RPC endpoint at POST / and POST /rpc. */
async function rpcProxy (app: FastifyInstance, options: RpcProxyOptions): Promise<void> {
  const log = app.log.child({ name: 'rpc-proxy' })
  const devAccounts = await loadDevAccounts({ file: options.devAccountsFile, rpc: app.geth.rpc, chainId: options.chainId, timeoutMs: options.timeoutMs })
  if (devAccounts.addresses.length > 0) log.info({ accounts: devAccounts.addresses }, 'eth_sendTransaction signs for these accounts')
  app.addHook('onClose', async () => devAccounts.close())
  const metrics = app.metrics.enabled ? app.metrics : undefined
  // Log filters are read through whichever instance a client reaches: their criteria are shared through the database.
  const sharedFilters = createSharedLogFilters({ db: app.db.knex, log })
  app.addHook('onClose', async () => sharedFilters.close())
  const handler = createJsonRpcHandler({ rpc: app.geth.rpc, chainId: options.chainId, limits: options, devAccounts, sharedFilters, log, labelMethods: metrics !== undefined })
  app.decorate('jsonRpcHandler', handler)
  // An encapsulated scope, so its body parser and error handler stay on these routes.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    // Any content type: clients send JSON as text/plain or with no type at all.
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: options.maxBodyBytes }, (_req, body, done) => done(null, body))
    scope.setValidatorCompiler(() => () => true)
    scope.setErrorHandler(async (error: FastifyError, _request, reply) => {
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return await reply.code(413).type(JSON_CONTENT_TYPE).send(JSON.stringify(errorResponse(null,
          new JsonRpcError('INVALID_REQUEST', `request body is larger than ${options.maxBodyBytes} bytes`))))
      }
      throw error
    })
    // /rpc/<API key>: a wallet's RPC URL carries the key (plugins/auth reads it).
    for (const url of ['/', '/rpc', '/rpc/:key']) {
      scope.post(url, { schema: jsonRpcRouteSchema }, async (request, reply) => await answer(handler, request, reply, metrics))
    }
  })
}

async function answer (handler: JsonRpcHandler, request: FastifyRequest, reply: FastifyReply, metrics: Metrics | undefined): Promise<FastifyReply> {
  const { status, body, methods } = await handler.handle(typeof request.body === 'string' ? request.body : '')
  if (methods !== undefined) {
    // Fastify's own clock from the request's start: no second one on the hot path.
    const seconds = reply.elapsedTime / 1000
    for (const method of methods) metrics!.observeJsonRpc(method, seconds)
  }
  reply.code(status)
  return body === undefined ? await reply.send() : await reply.type(JSON_CONTENT_TYPE).send(body)
}

export default fp(rpcProxy, { name: 'rpc-proxy', fastify: '5.x', dependencies: ['db', 'geth', 'metrics'] })
