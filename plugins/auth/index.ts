import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { Config } from '../../core/config.ts'
import { createApiKeyLookup, type ApiKeyFound, type ApiKeyLookup } from '../../core/api-keys/lookup.ts'
import { createUsageRecorder, type UsageRecorder } from '../../core/api-keys/usage.ts'
import type { ApiKeyRecord } from '../../core/api-keys/store.ts'
import { isDatabaseUnavailable } from '../../core/db/unavailable.ts'
import { refuseKey, refuseUncheckedRpcKey, routeChannel, type AccessChannel } from './channel.ts'
import { rpcCost, rpcIds } from '../../core/json-rpc/rpc-items.ts'
import type { JsonRpcId } from '../../core/json-rpc/errors.ts'
import { CONFLICTING_KEYS, sentKey } from './sent-key.ts'
import { adminRoutes } from './admin.ts'

declare module 'fastify' {
  interface FastifyInstance {
    apiKeys: { lookup: ApiKeyLookup, usage: UsageRecorder }
  }
  interface FastifyRequest {
    /** The request's live API key; null (or, on routes registered before this plugin such as /api-docs, undefined) for a public request. */
    apiKey: ApiKeyRecord | null | undefined
  }
}

export type AuthOptions = Config['auth']

/**
 * API keys: each route is marked with the API it belongs to (route config
 * `access`), and a request that sends a key has it checked before anything
 * else runs (a JSON-RPC POST, and a route whose key may be in its body, once
 * the body is read). A key that does not check out is refused with 401 in the
 * API's own error channel, never served as public, and charged to the
 * client's address, as is the database query a key never seen costs.
 * Registered before the routes, since its hooks apply to routes added after them.
 */
async function auth (app: FastifyInstance, options: AuthOptions): Promise<void> {
  const log = app.log.child({ name: 'auth' })
  const lookup = await createApiKeyLookup({ db: app.db.knex, databaseUrl: app.db.url, log })
  const usage = createUsageRecorder({ db: app.db.knex, log })
  app.addHook('onClose', async () => {
    await usage.close()
    await lookup.close()
  })
  app.decorate('apiKeys', { lookup, usage })
  app.decorateRequest('apiKey', null)

  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, access: route.config?.access ?? routeChannel(route) }
  })
  /**
   * The address's public budget pays for a refused key and for a key's first lookup; limits off, nothing.
   * Read when a request comes: plugins/rate-limit, which decorates the budget, depends on this plugin and so comes after it.
   */
  const chargeAddress = (request: FastifyRequest, reply: FastifyReply, channel: AccessChannel, next: HookHandlerDoneFunction, rpcText: string | undefined): void => {
    app.accessBudget.chargeAddress(request, reply, channel, next, rpcText)
  }
  /** 401 in the channel, one message whatever the reason; the reason goes to the log. Charged already when `charged`. */
  const refuse = (request: FastifyRequest, reply: FastifyReply, channel: AccessChannel, reason: string, rpcText: string | undefined, done: HookHandlerDoneFunction, charged = false): void => {
    const send = (err?: Error): void => {
      if (err !== undefined) return done(err)
      log.info({ reqId: request.id, channel, reason }, 'API key refused')
      // Sent, a refusal ends the request: `done` is called only should sending fail.
      refuseKey(reply, channel, idsOf(rpcText)).catch(done)
    }
    if (charged) send()
    else chargeAddress(request, reply, channel, send, rpcText)
  }
  const settle = (request: FastifyRequest, reply: FastifyReply, channel: AccessChannel, found: ApiKeyFound, rpcText: string | undefined, done: HookHandlerDoneFunction, charged = false): void => {
    if (typeof found === 'string') return refuse(request, reply, channel, `the key is ${found}`, rpcText, done, charged)
    request.apiKey = found
    done()
  }
  // Callback-style, not async: a cached key (nearly every request) is settled without a promise.
  const check = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const channel = request.routeOptions.config.access ?? 'rest'
    if (channel === 'free') return done()
    const key = sentKey(request, channel)
    if (key === undefined) return done()
    // A JSON-RPC POST is checked once its body is read: a refusal answers the request's ids.
    const rpcText = channel === 'json-rpc' && typeof request.body === 'string' ? request.body : undefined
    if (key === CONFLICTING_KEYS) return refuse(request, reply, channel, 'two different keys were sent', rpcText, done)
    const known = lookup.known(key)
    if (known !== undefined) return settle(request, reply, channel, known, rpcText, done)
    // Never seen here: the query is paid for first, so that random keys cost a client its
    // public budget and, once that is spent, a 429 rather than a query each.
    chargeAddress(request, reply, channel, (err?: Error) => {
      if (err !== undefined) return done(err)
      Promise.resolve(lookup.find(key)).then((found) => settle(request, reply, channel, found, rpcText, done, true), (err: Error) => {
        if (!isDatabaseUnavailable(err) || channel !== 'json-rpc') return done(err)
        log.warn({ reqId: request.id, err: err.message }, 'an API key could not be checked: the database is unavailable')
        refuseUncheckedRpcKey(reply, idsOf(rpcText)).catch(done)
      })
    }, rpcText)
  }
  const readsBody = (request: FastifyRequest): boolean =>
    request.routeOptions.config.keyInBody === true || (request.routeOptions.config.access === 'json-rpc' && request.method === 'POST')
  app.addHook('onRequest', (request, reply, done) => {
    if (readsBody(request)) return done()
    check(request, reply, done)
  })
  // Before validation: a body the route's schema refuses still had its key checked (and is charged to it).
  app.addHook('preValidation', (request, reply, done) => {
    if (!readsBody(request)) return done()
    check(request, reply, done)
  })

  if (options.adminToken !== undefined) await app.register(adminRoutes, { adminToken: options.adminToken })
}

/** The ids a JSON-RPC refusal answers: the request's, or each batch item's; null off JSON-RPC or without a body. */
function idsOf (rpcText: string | undefined): JsonRpcId | JsonRpcId[] {
  return rpcText === undefined ? null : rpcIds(rpcText, rpcCost(rpcText).batch)
}

export default fp(auth, { name: 'auth', fastify: '5.x', dependencies: ['db'] })
