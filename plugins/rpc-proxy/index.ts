import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createJsonRpcHandler, type JsonRpcHandler } from '../../core/json-rpc/handler.ts'
import { loadDevAccounts } from '../../core/json-rpc/dev-accounts.ts'
import { createSharedLogFilters } from '../../core/json-rpc/shared-log-filters.ts'
import { sendError } from '../send-error.ts'
import { rpcCost, rpcIds } from '../rate-limit/rpc-items.ts'
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
  const metrics = app.hasDecorator('metrics') && app.metrics.enabled ? app.metrics : undefined
  // Log filters are read through whichever instance a client reaches: their criteria are shared through the database.
  const sharedFilters = app.hasDecorator('db') ? createSharedLogFilters({ db: app.db.knex, log }) : undefined
  app.addHook('onClose', async () => sharedFilters?.close())
  const handler = createJsonRpcHandler({ rpc: app.geth.rpc, chainId: options.chainId, limits: options, devAccounts, sharedFilters, log, labelMethods: metrics !== undefined })
  app.decorate('jsonRpcHandler', handler)
  // An encapsulated scope, so its body parser and error handler stay on these routes.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    // Any content type: clients send JSON as text/plain or with no type at all.
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: options.maxBodyBytes }, (_req, body, done) => done(null, body))
    scope.setValidatorCompiler(() => () => true)
    // Failures outside the handler's own answers (a body too large, a hook's) answer in JSON-RPC's shape too, for the body's ids when it was read.
    scope.setErrorHandler(async (error: FastifyError, request, reply) => {
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        const tooLarge = { statusCode: 413, message: `request body is larger than ${options.maxBodyBytes} bytes` }
        return await sendError(request, reply, 'json-rpc', error, { answerAs: tooLarge, rpcError: 'INVALID_REQUEST' })
      }
      const text = typeof request.body === 'string' ? request.body : undefined
      return await sendError(request, reply, 'json-rpc', error, { rpcIds: text === undefined ? null : rpcIds(text, rpcCost(text).batch) })
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

export default fp(rpcProxy, { name: 'rpc-proxy', fastify: '5.x', dependencies: ['geth'] })
