// Where a client may put its API key: header x-api-key (any API), query
// apikey (what Blockscout and Etherscan clients send), Authorization: Bearer,
// on JSON-RPC the last path segment (POST /rpc/<key>, a wallet's RPC URL), and
// on a route whose body carries parameters (route config keyInBody) its field apikey.
import type { FastifyRequest } from 'fastify'
import type { AccessChannel } from './channel.ts'

/** Two different keys, or one sent twice in one place: refused rather than guessed at. */
export const CONFLICTING_KEYS = Symbol('conflicting API keys')

const BEARER = /^bearer /i

/** The one key the request sends, CONFLICTING_KEYS, or undefined (a public request). */
export function sentKey (request: FastifyRequest, channel: AccessChannel): string | typeof CONFLICTING_KEYS | undefined {
  const headers = request.headers
  const query = request.query as Record<string, unknown> | undefined
  return oneKey([
    channel === 'json-rpc' ? (request.params as Record<string, unknown> | undefined)?.key : undefined,
    headers['x-api-key'],
    // The admin API's own token travels in Authorization: it is no API key.
    channel !== 'admin' ? bearerKey(headers.authorization) : undefined,
    query?.apikey,
    request.routeOptions.config.keyInBody === true ? bodyField(request.body, 'apikey') : undefined
  ])
}

/** The key of `Authorization: Bearer <key>`; undefined without the header or with another scheme. */
export function bearerKey (authorization: string | undefined): string | undefined {
  return typeof authorization === 'string' && BEARER.test(authorization) ? authorization.slice(7).trim() : undefined
}

/**
 * The one key among the places a request may put one (undefined: none
 * there), CONFLICTING_KEYS, or undefined. Shared with the JSON-RPC fast path
 * (plugins/rpc-proxy/fast-path.ts), which reads the path and headers alone.
 */
export function oneKey (candidates: unknown[]): string | typeof CONFLICTING_KEYS | undefined {
  let key: string | undefined
  for (const candidate of candidates) {
    if (candidate === undefined) continue
    if (typeof candidate !== 'string' || (key !== undefined && key !== candidate)) return CONFLICTING_KEYS
    key = candidate
  }
  return key
}

function bodyField (body: unknown, name: string): unknown {
  return body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined
}
