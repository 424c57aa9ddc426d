import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { Config } from '../../core/config.ts'
import { createApiKeyLookup, type ApiKeyFound, type ApiKeyLookup } from '../../core/api-keys/lookup.ts'
import { createUsageRecorder, type UsageRecorder } from '../../core/api-keys/usage.ts'
import type { ApiKeyRecord } from '../../core/api-keys/store.ts'
import { refuseKey, routeChannel, type AccessChannel } from './channel.ts'
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
 * else runs. A key that does not check out is refused with 401 in the API's
 * own error channel, never served as public. Registered before the routes,
 * since its hooks apply to routes added after them.
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
  // Callback-style, not async: a cached key (nearly every request) is settled without a promise.
  const check = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const channel = request.routeOptions.config.access ?? 'rest'
    if (channel === 'free') return done()
    const key = sentKey(request, channel)
    if (key === undefined) return done()
    if (key === CONFLICTING_KEYS) return refuse(reply, channel, 'two different keys were sent', done)
    const found = lookup.find(key)
    if (!(found instanceof Promise)) return settle(request, reply, channel, found, done)
    found.then((f) => settle(request, reply, channel, f, done), done)
  }
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.config.keyInBody === true) return done()
    check(request, reply, done)
  })
  // Before validation: a body the route's schema refuses still had its key checked (and is charged to it).
  app.addHook('preValidation', (request, reply, done) => {
    if (request.routeOptions.config.keyInBody !== true) return done()
    check(request, reply, done)
  })

  if (options.adminToken !== undefined) await app.register(adminRoutes, { adminToken: options.adminToken })
}

/** Sent, a refusal ends the request: `done` is called only should sending fail. */
function refuse (reply: FastifyReply, channel: AccessChannel, reason: string, done: HookHandlerDoneFunction): void {
  refuseKey(reply, channel, reason).catch(done)
}

function settle (request: FastifyRequest, reply: FastifyReply, channel: AccessChannel, found: ApiKeyFound, done: HookHandlerDoneFunction): void {
  if (typeof found === 'string') return refuse(reply, channel, `the key is ${found}`, done)
  request.apiKey = found
  done()
}

export default fp(auth, { name: 'auth', fastify: '5.x', dependencies: ['db'] })
