import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify'
import type { Config } from '../../core/config.ts'
import { createHttpCache, matchesIfNoneMatch, type HttpCache, type IndexedHead } from '../../core/http-cache/index.ts'
import { readIndexedHead } from '../../core/indexer/store.ts'
import { CACHED_ROUTES, type CachedRoute } from './routes.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The head-keyed answers (core/http-cache); undefined with HTTP_CACHE_ENABLED=false. */
    httpCache: HttpCache | undefined
  }
  interface FastifyRequest {
    /** Set while the answer being made is to be kept: the head it is read at and its key. */
    httpCacheLookup: { head: IndexedHead, key: string, generation: number } | null
  }
}

export type HttpCachePluginOptions = Config['httpCache']

/**
 * Cache-Control of a public answer. One second: a block comes every
 * CLIQUE_PERIOD (5 s by default), so a browser or CDN that reuses the answer
 * for a second shows at most the block before, while a home page polled by
 * many visitors costs the gateway one request a second per URL and edge.
 * `no-cache` would send every poll here (cheap with 304, but each one a
 * request and a database-free trip nonetheless); longer would show blocks late.
 */
const PUBLIC_CACHE_CONTROL = 'public, max-age=1'
/**
 * Cache-Control of an answer to a request with an API key: the key's budget
 * is spent by each request (a 304 too) and a revoked key must be refused, so
 * no shared cache may keep it, and the client's own revalidates every time.
 */
const KEYED_CACHE_CONTROL = 'private, no-cache'
/** Request headers that carry an API key (plugins/auth/sent-key.ts): a shared cache must not answer a keyed request with a public answer. */
const KEY_HEADERS = ['x-api-key', 'authorization']
const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * ETag, Cache-Control and 304 Not Modified on the REST routes of routes.ts,
 * answered from core/http-cache while the indexed head stays. Runs after the
 * auth and rate-limit hooks (onRequest), so a key is checked and a request
 * charged whether or not its answer comes from the cache.
 */
async function httpCache (app: FastifyInstance, options: HttpCachePluginOptions): Promise<void> {
  app.decorateRequest('httpCacheLookup', null)
  if (!options.enabled) {
    app.decorate('httpCache', undefined)
    return
  }
  const cache = createHttpCache({ events: app.indexer.events, readHead: async () => await readIndexedHead(app.db.knex), maxBytes: options.maxBytes })
  app.decorate('httpCache', cache)
  app.addHook('onClose', async () => cache.close())
  // A verification, here or on another instance, changes what details and lists show (names, is_verified, decoded input) at the same head.
  const stopVerified = app.verifier.subscribe((event) => { if (event.status === 'success') cache.clear() })
  const stopHearing = app.verifier.subscribeStored(() => { cache.clear() })
  // So does a name or tag changed anywhere (a tag is set by another process): plugins/address-names hears it.
  const stopNames = app.addressNames.onChange(() => cache.clear())
  app.addHook('onClose', async () => { stopVerified(); stopHearing(); stopNames() })
  app.addHook('onRoute', (route) => {
    const cached = CACHED_ROUTES.get(route.url)
    if (cached === undefined || ![route.method].flat().every((m) => m === 'GET' || m === 'HEAD')) return
    route.preHandler = [...[route.preHandler ?? []].flat(), answerFromCache(cache, cached)]
    route.onSend = [...[route.onSend ?? []].flat(), keepAnswer(cache, cached)]
  })
}

function answerFromCache (cache: HttpCache, route: CachedRoute): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const head = await cache.head()
    // Nothing indexed yet: nothing to key on.
    if (head === undefined) return
    const key = route.varyHeaders.reduce((k, name) => `${k}\n${String(request.headers[name] ?? '')}`, request.url)
    const answer = cache.find(head, key)
    if (answer === undefined) {
      request.httpCacheLookup = { head, key, generation: cache.generation() }
      return
    }
    setCacheHeaders(request, reply, route, answer.etag)
    if (matchesIfNoneMatch(request.headers['if-none-match'], answer.etag)) return await reply.code(304).send()
    return await reply.type(answer.contentType).send(answer.body)
  }
}

function keepAnswer (cache: HttpCache, route: CachedRoute): onSendAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const lookup = request.httpCacheLookup
    if (lookup === null || reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload
    const answer = cache.keep(lookup.head, lookup.key, payload, String(reply.getHeader('content-type') ?? JSON_TYPE), lookup.generation)
    setCacheHeaders(request, reply, route, answer.etag)
    if (!matchesIfNoneMatch(request.headers['if-none-match'], answer.etag)) return payload
    reply.code(304).removeHeader('content-type')
    return null
  }
}

/** The headers a 200 and a 304 of a cached route both carry (RFC 9110 15.4.5). */
function setCacheHeaders (request: FastifyRequest, reply: FastifyReply, route: CachedRoute, etag: string): void {
  reply.header('etag', etag)
  reply.header('cache-control', request.apiKey == null ? PUBLIC_CACHE_CONTROL : KEYED_CACHE_CONTROL)
  const vary = reply.getHeader('vary')
  reply.header('vary', [...(vary === undefined ? [] : [String(vary)]), ...route.varyHeaders, ...KEY_HEADERS].join(', '))
}

export default fp(httpCache, { name: 'http-cache', fastify: '5.x', dependencies: ['db', 'indexer', 'auth', 'verify', 'address-names'] })
