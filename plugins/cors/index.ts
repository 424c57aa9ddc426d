// CORS for every route the gateway serves (REST, GraphQL, JSON-RPC, stats, the
// sockets): Blockscout's front end is normally run on an origin of its own and
// calls the API from the browser, and wallets call the JSON-RPC from pages.
// Registered first, at the root: its hook answers a preflight before any
// route or not-found handler sees it (the REST scope's catch-all answers
// unknown paths 400, and a preflight must never reach it).
import fp from 'fastify-plugin'
import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../core/config.ts'

export type CorsOptions = Config['cors']

/**
 * Request headers a cross-origin caller may send: the ones Blockscout's own
 * CORS configuration allows (so its front end's requests pass as they do
 * there), with this gateway's API key header.
 */
export const ALLOWED_HEADERS = [
  'authorization', 'content-type', 'accept', 'origin', 'user-agent', 'dnt', 'cache-control', 'x-mx-reqtoken',
  'keep-alive', 'x-requested-with', 'if-modified-since', 'x-csrf-token',
  'x-apollo-tracing', 'updated-gas-oracle', 'recaptcha-v2-response', 'recaptcha-v3-response',
  'recaptcha-bypass-token', 'scoped-recaptcha-bypass-token', 'show-scam-tokens', 'api-v2-temp-token',
  'x-api-key', 'if-none-match'
]

/** Response headers a cross-origin page may read: the rate limit's, as Blockscout exposes them, and the cached routes' tag (plugins/http-cache). */
export const EXPOSED_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'bypass-429-option', 'etag']

/** How long a browser may reuse a preflight's answer (Blockscout's 20 days). */
const PREFLIGHT_MAX_AGE_S = 1_728_000

async function corsPlugin (app: FastifyInstance, options: CorsOptions): Promise<void> {
  await app.register(cors, {
    origin: options.origins === '*' ? '*' : [...options.origins],
    methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_S,
    // Answered in the onRequest hook, whatever the path: 204 with the headers above.
    preflight: true,
    strictPreflight: false,
    optionsSuccessStatus: 204,
    hideOptionsRoute: true
  })
}

/**
 * The headers the hook above gives an actual (not preflight) request from
 * `origin`, for a request answered outside Fastify's lifecycle
 * (plugins/rpc-proxy/fast-path.ts): @fastify/cors's, for these options. A list
 * of origins varies by Origin and names the request's when it is listed; any
 * origin is '*'. test/plugins/rpc-proxy/fast-path.test.ts holds the two equal.
 */
export function corsHeaders (options: CorsOptions): (origin: string | undefined) => Array<[string, string]> {
  const exposed: [string, string] = ['access-control-expose-headers', EXPOSED_HEADERS.join(', ')]
  if (options.origins === '*' || options.origins.includes('*')) {
    const headers: Array<[string, string]> = [['access-control-allow-origin', '*'], exposed]
    return () => headers
  }
  const listed = new Set(options.origins)
  const unlisted: Array<[string, string]> = [['vary', 'Origin'], exposed]
  return (origin) => origin !== undefined && listed.has(origin) ? [['vary', 'Origin'], ['access-control-allow-origin', origin], exposed] : unlisted
}

export default fp(corsPlugin, { name: 'cors', fastify: '5.x' })
