import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createJsonRpcHandler, type JsonRpcHandler } from '../../core/json-rpc/handler.ts'
import { loadDevAccounts } from '../../core/json-rpc/dev-accounts.ts'
import { createSharedLogFilters } from '../../core/json-rpc/shared-log-filters.ts'
import { sendError } from '../send-error.ts'
import { rpcCost, rpcIds } from '../../core/json-rpc/rpc-items.ts'
import type { Config } from '../../core/config.ts'
import { jsonRpcRouteSchema } from './schemas.ts'
import type { Metrics } from '../../core/metrics/index.ts'
import { createSubscriptionHub, type SubscriptionHub } from '../../core/json-rpc/subscriptions.ts'
import { openRpcSocket } from '../../core/rpc/socket-client.ts'
import { createAnswerCache, type AnswerCache } from '../../core/json-rpc/answer-cache.ts'
import { watchHeads } from '../../core/json-rpc/head-watch.ts'
import { registerRpcCacheMetrics } from '../../core/metrics/rpc-cache.ts'
import { registerRpcUpstreamMetrics } from '../../core/metrics/rpc-upstreams.ts'
import { createUpstreams, type Upstreams } from '../../core/rpc/upstreams.ts'
import { createFailoverClient } from '../../core/json-rpc/failover.ts'
import type { RpcClient } from '../../core/rpc/client.ts'
import { isPremiumKey } from '../../core/api-keys/store.ts'
import { corsHeaders } from '../cors/index.ts'
import { createRpcFastPath } from './fast-path.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The endpoint's handler, shared by the WebSocket (plugins/rpc-websocket): one allow-list, one set of log filters. */
    jsonRpcHandler: JsonRpcHandler
    /**
     * The fan-out of the node's subscriptions (core/json-rpc/subscriptions.ts): the cache hears heads
     * through it, and the WebSocket's clients subscribe through it (plugins/rpc-websocket).
     * Undefined when the node has no WebSocket (an external node without GETH_WS_URL).
     */
    jsonRpcHub: SubscriptionHub | undefined
    /** The kept answers (core/json-rpc/answer-cache.ts); undefined with RPC_CACHE_ENABLED=false or without the node's WebSocket. */
    jsonRpcCache: AnswerCache | undefined
    /** RPC_UPSTREAMS (core/rpc/upstreams.ts), which the endpoint asks while the local Geth does not answer; undefined when none is set. */
    jsonRpcUpstreams: Upstreams | undefined
  }
}

export type RpcProxyOptions = Config['rpcProxy'] & {
  chainId: number
  cors: Config['cors']
  /** Answer requests without a key, or with a live one, ahead of Fastify's router (fast-path.ts); off while each request is logged, or X-Forwarded-For believed. */
  fastPath: boolean
}

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
  const hub = createHub(app, options.timeoutMs)
  app.decorate('jsonRpcHub', hub)
  const cache = createCache(app, options, hub, log)
  app.decorate('jsonRpcCache', cache)
  // Registered with or without a cache or upstreams (no samples then): the metric names do not depend on the settings.
  if (metrics !== undefined) registerRpcCacheMetrics(metrics.registry, () => cache?.stats())
  const { rpc, upstreams } = createFailover(app, options, cache, log)
  app.decorate('jsonRpcUpstreams', upstreams)
  if (metrics !== undefined) registerRpcUpstreamMetrics(metrics.registry, () => upstreams?.report() ?? [])
  const handler = createJsonRpcHandler({ rpc, chainId: options.chainId, limits: options, devAccounts, sharedFilters, log, labelMethods: metrics !== undefined, cache })
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
  if (options.fastPath) {
    let open = true
    // Fastify answers 503 to requests that come while it closes.
    app.addHook('preClose', async () => { open = false })
    app.frontDoor.take(createRpcFastPath({
      handler, maxBodyBytes: options.maxBodyBytes, budget: app.accessBudget, keys: app.apiKeys.lookup, cors: corsHeaders(options.cors), metrics, log: app.log, isOpen: () => open
    }))
  }
}

async function answer (handler: JsonRpcHandler, request: FastifyRequest, reply: FastifyReply, metrics: Metrics | undefined): Promise<FastifyReply> {
  const { status, body, methods, outcomes } = await handler.handle(typeof request.body === 'string' ? request.body : '', undefined, isPremiumKey(request.apiKey))
  if (methods !== undefined) {
    // Fastify's own clock from the request's start: no second one on the hot path.
    metrics!.observeJsonRpcCalls(methods, outcomes!, reply.elapsedTime / 1000)
  }
  reply.code(status)
  return body === undefined ? await reply.send() : await reply.type(JSON_CONTENT_TYPE).send(body)
}

/** The fan-out of our own Geth's subscriptions, set up again as soon as the supervisor has restarted it. */
function createHub (app: FastifyInstance, timeoutMs: number): SubscriptionHub | undefined {
  const url = app.geth.wsUrl
  if (url === undefined) return undefined
  const hub = createSubscriptionHub({
    openSocket: async (handlers) => await openRpcSocket({ url, timeoutMs, ...handlers }),
    log: app.log.child({ name: 'rpc-websocket' })
  })
  const supervisor = app.geth.supervisor
  if (supervisor !== undefined) {
    const onReady = (): void => hub.restoreNow()
    supervisor.on('ready', onReady)
    app.addHook('onClose', async () => { supervisor.off('ready', onReady) })
  }
  app.addHook('onClose', async () => hub.close())
  return hub
}

/** The kept answers, hearing heads from the hub's newHeads (the first listener: before any client's). */
function createCache (app: FastifyInstance, options: RpcProxyOptions, hub: SubscriptionHub | undefined, log: FastifyInstance['log']): AnswerCache | undefined {
  if (!options.cacheEnabled) return undefined
  if (hub === undefined) {
    log.info('RPC_CACHE_ENABLED: the node has no WebSocket (set GETH_WS_URL beside GETH_RPC_URL) to hear new heads from; no answers are kept')
    return undefined
  }
  const cache = createAnswerCache({
    maxBytes: options.cacheMaxBytes,
    canonicalHash: async (number) => (await app.geth.rpc.call<{ hash: string } | null>('eth_getBlockByNumber', ['0x' + number.toString(16), false]))?.hash.toLowerCase(),
    log
  })
  const watch = watchHeads({ hub, onHead: (head) => cache.heard(head), onLost: () => cache.lost(), log })
  app.addHook('onClose', async () => watch.stop())
  return cache
}

/** The local node, and RPC_UPSTREAMS while it does not answer; just the local node when none is set. */
function createFailover (app: FastifyInstance, options: RpcProxyOptions, cache: AnswerCache | undefined, log: FastifyInstance['log']): { rpc: RpcClient, upstreams: Upstreams | undefined } {
  if (options.upstreams.length === 0) return { rpc: app.geth.rpc, upstreams: undefined }
  const upstreams = createUpstreams({
    urls: options.upstreams,
    chainId: options.chainId,
    timeoutMs: options.timeoutMs,
    checkIntervalMs: options.upstreamCheckIntervalMs,
    maxLagBlocks: options.upstreamMaxLagBlocks,
    local: app.geth.rpc,
    log
  })
  app.addHook('onClose', async () => await upstreams.close())
  log.info({ upstreams: upstreams.list.map((u) => u.name) }, 'RPC_UPSTREAMS: reads and eth_sendRawTransaction go there while the local node does not answer')
  // Suspended until the local node's next head is heard: its answers were not asked meanwhile.
  const rpc = createFailoverClient({ local: app.geth.rpc, upstreams, log, onLocalDown: () => cache?.lost() })
  return { rpc, upstreams }
}

export default fp(rpcProxy, { name: 'rpc-proxy', fastify: '5.x', dependencies: ['db', 'geth', 'metrics', 'cors', 'auth', 'rate-limit'] })
