import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { Config } from '../../core/config.ts'
import { createCounterStore } from '../../core/rate-limit/counters.ts'
import { clientBucket } from '../../core/net/client-bucket.ts'
import { refuseOverLimit, type AccessChannel } from '../auth/channel.ts'
import { costedKey, counterStoreClass } from './counter-store.ts'
import { rpcCost, rpcIds } from '../../core/json-rpc/rpc-items.ts'
import { isPremiumKey, type ApiKeyRecord } from '../../core/api-keys/store.ts'

declare module 'fastify' {
  interface FastifyInstance {
    accessBudget: AccessBudget
  }
  interface FastifyRequest {
    /** Requests this one counts as (a JSON-RPC batch: its items). */
    rateLimitCost: number
  }
}

export type AccessBudget = {
  /** Where requests are counted now: 'off' with limits off, 'memory' also while Redis is away. */
  backend (): 'redis' | 'memory' | 'off'
  /**
   * Spends `cost` requests (1 by default) of the client that opened this
   * WebSocket, for a message it sent (a GraphQL subscription start, a JSON-RPC
   * message: each item of a batch); false when over its limit.
   */
  chargeSubscription (upgradeRequest: FastifyRequest, cost?: number): Promise<boolean>
  /** What a JSON-RPC text costs the client of `request` (the request, a WebSocket's upgrade, the fast path's key): a premium key's traces weigh RPC_TRACE_WEIGHT each. */
  rpcCost (request: KeyHolder, text: string): ReturnType<typeof rpcCost>
  /**
   * Spends one request of the client address's public budget for a request
   * whose API key is refused, or must be looked up in the database (plugins/auth):
   * so a client cannot have keys looked up past its public budget. Within it,
   * `next()`; over it, answers 429 in the channel (JSON-RPC: for `rpcText`'s
   * ids) and ends the request; `next(err)` when counting failed.
   */
  chargeAddress (request: FastifyRequest, reply: FastifyReply, channel: AccessChannel, next: HookHandlerDoneFunction, rpcText?: string): void
  /**
   * Spends `cost` requests (a JSON-RPC body's: rpcCost) of a client without
   * an API key whose JSON-RPC request is answered outside Fastify's lifecycle
   * (plugins/rpc-proxy/fast-path.ts): counted as the JSON-RPC routes' hook
   * counts it. The headers to answer with (the limit's, and retry-after when
   * refused; none with limits off) and whether it is refused, which the
   * metrics have counted already.
   */
  chargePublicRpc (client: RawClient, cost: number): RpcCharge | Promise<RpcCharge>
  /**
   * chargePublicRpc for a client whose live API key plugins/auth would have
   * let in (the fast path's keyed requests): counted as the JSON-RPC routes'
   * hook counts a keyed request, against the key's own limit, and its use
   * recorded even with limits off.
   */
  chargeKeyRpc (key: ApiKeyRecord, client: RawClient, cost: number): RpcCharge | Promise<RpcCharge>
}

/** Whoever holds the key a cost depends on: a request (null or undefined: none). */
export type KeyHolder = Pick<FastifyRequest, 'apiKey'>

/** A client as the HTTP server sees it, before any Fastify request: its address (request.ip) and headers (Origin). */
export type RawClient = { ip: string, headers: IncomingHttpHeaders }
export type RpcCharge = { headers: Array<[string, string | number]>, refused: boolean }

export type RateLimitOptions = Config['rateLimit']

const WINDOW_MS = 60_000
const WINDOW_S = WINDOW_MS / 1000

type Spent = { limit: number, remaining: number, resetS: number, exceeded: boolean, policy: string }

/**
 * One budget per client across JSON-RPC, REST, GraphQL and its WebSocket: a
 * public client is counted by address (the explorer front end's visitors
 * apart, at their own limit), a keyed one by key, on
 * @fastify/rate-limit with core/rate-limit's counters (Redis when REDIS_URL
 * is set). Health and metrics are never charged. Limits off
 * (RATE_LIMIT_ENABLED=false), keys are still checked and their use recorded.
 */
async function rateLimitPlugin (app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  const log = app.log.child({ name: 'rate-limit' })
  const usage = app.apiKeys.usage
  app.decorateRequest('rateLimitCost', 1)
  // The explorer front end's visitors: keyless requests from its origin
  // (a browser sets Origin; a script may send any) get a budget of their own
  // per address, as Blockscout's UI gets one apart from its by-IP limit.
  const explorerOrigins = new Set(options.explorerOrigins)
  const isExplorer = (request: FastifyRequest): boolean => {
    const origin = request.headers.origin
    return explorerOrigins.size > 0 && origin !== undefined && explorerOrigins.has(origin)
  }
  const limitOf = (request: FastifyRequest): number => {
    const key = request.apiKey
    if (key == null) return isExplorer(request) ? options.explorerPerMin : options.publicPerMin
    return key.limitPerMin ?? (key.tier === 'premium' ? options.premiumPerMin : options.publicPerMin)
  }

  const clientKey = (request: FastifyRequest): string => request.apiKey != null
    ? `key:${request.apiKey.id}`
    : `${isExplorer(request) ? 'explorer' : 'ip'}:${clientBucket(request.ip)}`
  // Only a premium key may trace: anyone else's trace is refused, and costs what a refused call does.
  const rpcCostOf = (request: KeyHolder, text: string): ReturnType<typeof rpcCost> => rpcCost(text, isPremiumKey(request.apiKey) ? options.traceWeight : 1)
  const policyOf = (request: FastifyRequest): string => request.apiKey?.tier ?? (isExplorer(request) ? 'explorer' : 'public')
  let backend = (): 'redis' | 'memory' | 'off' => 'off'
  let spend: (request: FastifyRequest, cost: number) => Spent | undefined | Promise<Spent | undefined> = (request, cost) => {
    if (request.apiKey != null) usage.record(request.apiKey.id, cost, false)
    return undefined
  }
  if (options.enabled) {
    const counters = createCounterStore({ redisUrl: options.redisUrl, log })
    app.addHook('onClose', async () => await counters.close())
    backend = counters.backend
    await app.register(rateLimit, { global: false, store: counterStoreClass(counters, WINDOW_MS) })
    const limiter = app.createRateLimit({
      timeWindow: WINDOW_MS,
      keyGenerator: (request) => costedKey(request.rateLimitCost, clientKey(request)),
      max: (request) => limitOf(request)
    })
    const spent = (request: FastifyRequest, cost: number, limit: number, remaining: number, resetS: number, exceeded: boolean): Spent => {
      if (request.apiKey != null) usage.record(request.apiKey.id, cost, exceeded)
      return { limit, remaining, resetS, exceeded, policy: policyOf(request) }
    }
    spend = (request, cost) => {
      const limit = limitOf(request)
      // Counted in memory or within a lease (nearly every request), the count
      // is settled here, in @fastify/rate-limit's terms, without a promise: its
      // limiter awaits three times, which cost a proxied eth_blockNumber 8 to
      // 10 % more CPU (bench:rpc). A count that must wait for Redis (a public
      // client's, counted exactly; a lease's first slice) goes through it.
      const now = counters.incrNow(clientKey(request), cost, WINDOW_MS, limit)
      if (now !== undefined) return spent(request, cost, limit, Math.max(0, limit - now.count), Math.ceil(now.ttlMs / 1000), now.count > limit)
      request.rateLimitCost = cost
      return limiter(request).then((result) => result.isAllowed ? undefined : spent(request, cost, result.max, result.remaining, result.ttlInSeconds, result.isExceeded))
    }
  }

  function answer (request: FastifyRequest, reply: FastifyReply, channel: AccessChannel, spent: Spent | undefined, done: HookHandlerDoneFunction, rpcText?: string): void {
    if (spent === undefined) return done()
    setLimitHeaders(reply, spent)
    if (!spent.exceeded) return done()
    // app.metrics is decorated by a plugin registered after this one; hooks run once all are.
    app.metrics.rateLimitRejections.inc({ tier: spent.policy })
    reply.header('retry-after', spent.resetS)
    // Sent, a refusal ends the request: `done` only carries a failure.
    refuseOverLimit(reply, channel, rpcText === undefined ? null : rpcIds(rpcText, rpcCost(rpcText).batch)).catch(done)
  }

  // Callback-style, not async: a request counted in memory or within a lease costs no promise.
  const charged = (request: FastifyRequest, reply: FastifyReply, channel: AccessChannel, cost: number, done: HookHandlerDoneFunction, rpcText?: string): void => {
    const spent = spend(request, cost)
    if (!(spent instanceof Promise)) return answer(request, reply, channel, spent, done, rpcText)
    spent.then((s) => answer(request, reply, channel, s, done, rpcText), done)
  }
  app.addHook('onRequest', (request, reply, done) => {
    const channel = request.routeOptions.config.access ?? 'rest'
    // JSON-RPC is charged once its body is read, by its number of requests.
    if (channel === 'free' || channel === 'json-rpc' || request.routeOptions.config.keyInBody === true) return done()
    charged(request, reply, channel, 1, done)
  })
  // A route whose key may be in its body is charged once auth has read it there (auth's preValidation runs first).
  app.addHook('preValidation', (request, reply, done) => {
    if (request.routeOptions.config.keyInBody !== true) return done()
    charged(request, reply, request.routeOptions.config.access ?? 'rest', 1, done)
  })
  app.addHook('preHandler', (request, reply, done) => {
    if (request.routeOptions.config.access !== 'json-rpc') return done()
    const text = typeof request.body === 'string' ? request.body : ''
    charged(request, reply, 'json-rpc', rpcCostOf(request, text).cost, done, text)
  })
  const rpcCharge = (spent: Spent | undefined): RpcCharge => {
    if (spent === undefined) return NOT_LIMITED
    const headers = limitHeaders(spent)
    if (spent.exceeded) {
      app.metrics.rateLimitRejections.inc({ tier: spent.policy })
      headers.push(['retry-after', spent.resetS])
    }
    return { headers, refused: spent.exceeded }
  }
  const chargeRpc = (request: FastifyRequest, cost: number): RpcCharge | Promise<RpcCharge> => {
    const spent = spend(request, cost)
    return spent instanceof Promise ? spent.then(rpcCharge) : rpcCharge(spent)
  }
  app.decorate('accessBudget', {
    backend: () => backend(),
    rpcCost: rpcCostOf,
    chargePublicRpc (client: RawClient, cost: number) {
      // Limits off, a request without a key is neither counted nor recorded.
      if (!options.enabled) return NOT_LIMITED
      return chargeRpc(rpcRequest(client, null), cost)
    },
    chargeKeyRpc (key: ApiKeyRecord, client: RawClient, cost: number) {
      return chargeRpc(rpcRequest(client, key), cost)
    },
    async chargeSubscription (upgradeRequest: FastifyRequest, cost = 1) {
      const spent = await spend(upgradeRequest, cost)
      if (spent?.exceeded !== true) return true
      app.metrics.rateLimitRejections.inc({ tier: spent.policy })
      return false
    },
    chargeAddress (request: FastifyRequest, reply: FastifyReply, channel: AccessChannel, next: HookHandlerDoneFunction, rpcText?: string) {
      // Before the key is settled, the request has none: charged to its address.
      if (request.apiKey != null) return next(new Error('chargeAddress on a request with a key'))
      charged(request, reply, channel, 1, next, rpcText)
    }
  })
}

/**
 * Blockscout's headers, and the IETF pair as draft-ietf-httpapi-ratelimit-headers
 * (-08 on) spells them: a named policy with its quota and window, and what
 * remains of it with the seconds until it resets.
 */
function limitHeaders (spent: Spent): Array<[string, string | number]> {
  return [
    ['x-ratelimit-limit', spent.limit],
    ['x-ratelimit-remaining', spent.remaining],
    ['x-ratelimit-reset', spent.resetS],
    ['ratelimit-policy', policyHeader(spent.policy, spent.limit)],
    ['ratelimit', `"${spent.policy}";r=${spent.remaining};t=${spent.resetS}`]
  ]
}

function setLimitHeaders (reply: FastifyReply, spent: Spent): void {
  for (const [name, value] of limitHeaders(spent)) reply.header(name, value)
}

const NOT_LIMITED: RpcCharge = { headers: [], refused: false }
const RPC_ROUTE_OPTIONS = { config: { access: 'json-rpc' } }

/**
 * What the counting reads of a request (spend, and @fastify/rate-limit's
 * limiter: the key generator, the limit, the route's config), for a client
 * whose request never became a Fastify request; `apiKey` as plugins/auth
 * would have settled it.
 */
function rpcRequest (client: RawClient, apiKey: ApiKeyRecord | null): FastifyRequest {
  return { apiKey, ip: client.ip, headers: client.headers, rateLimitCost: 1, routeOptions: RPC_ROUTE_OPTIONS } as unknown as FastifyRequest
}

/** A policy's header is the same on every response of its clients: built once per tier and limit. */
const policyHeaders = new Map<string, Map<number, string>>()
/** Limits differ only by keys' own: a bound against a table grown without end all the same. */
const MAX_POLICY_HEADERS = 1000
function policyHeader (policy: string, limit: number): string {
  let byLimit = policyHeaders.get(policy)
  if (byLimit === undefined) policyHeaders.set(policy, byLimit = new Map())
  let header = byLimit.get(limit)
  if (header === undefined) {
    header = `"${policy}";q=${limit};w=${WINDOW_S}`
    if (byLimit.size < MAX_POLICY_HEADERS) byLimit.set(limit, header)
  }
  return header
}

export default fp(rateLimitPlugin, { name: 'rate-limit', fastify: '5.x', dependencies: ['auth'] })
