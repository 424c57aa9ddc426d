import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../core/config.ts'
import { createApiKeyLookup, type ApiKeyLookup } from '../../core/api-keys/lookup.ts'
import { createUsageRecorder, type UsageRecorder } from '../../core/api-keys/usage.ts'
import type { ApiKeyRecord } from '../../core/api-keys/store.ts'
import { refuseKey, routeChannel } from './channel.ts'
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
  app.addHook('onRequest', async (request, reply) => {
    const channel = request.routeOptions.config.access ?? 'rest'
    if (channel === 'free') return
    const key = sentKey(request, channel)
    if (key === undefined) return
    if (key === CONFLICTING_KEYS) return await refuseKey(reply, channel, 'two different keys were sent')
    const found = await lookup.find(key)
    if (typeof found === 'string') return await refuseKey(reply, channel, `the key is ${found}`)
    request.apiKey = found
  })

  if (options.adminToken !== undefined) await app.register(adminRoutes, { adminToken: options.adminToken })
}

export default fp(auth, { name: 'auth', fastify: '5.x', dependencies: ['db'] })
