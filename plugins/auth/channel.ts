// Which API a route belongs to, and how each says "no" in its own channel:
// JSON-RPC an error object per request, GraphQL errors[], REST the coded {statusCode, code, error, message},
// the Etherscan-style /api its envelope with Etherscan's words.
// Set on each route as it is added (route config `access`), read by the auth
// and rate-limit hooks.
import type { FastifyReply, RouteOptions } from 'fastify'
import { JsonRpcError, keyRefusedAnswer, overLimitAnswer, type JsonRpcId } from '../../core/json-rpc/errors.ts'
import { gatewayErrorBody, graphqlErrorBody, jsonRpcErrorBody, publicErrorOf } from '../../core/error-answers.ts'
import { ApiKeyInvalidError, DatabaseUnavailableError, RateLimitedError } from '../../core/errors.ts'
import { GRAPHQL_PATH, GRAPHQL_V1_PATH } from '../graphql/paths.ts'
import { notOk } from '../etherscan/envelope.ts'

/**
 * `free`: never charged nor checked (health and metrics); `admin`: its own
 * token, charged as REST; `etherscan`: charged as REST, set by its routes.
 */
export type AccessChannel = 'json-rpc' | 'graphql' | 'rest' | 'etherscan' | 'admin' | 'free'

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: AccessChannel
    /**
     * The route reads its parameters from a form or JSON body as well as the
     * query (the Etherscan-style POST /api, where hardhat-verify and forge put
     * `apikey`): its key is checked, and its request charged, once the body is read.
     */
    keyInBody?: boolean
  }
}

export const RPC_PATHS = new Set(['/', '/rpc', '/rpc/:key'])
const GRAPHQL_PATHS = new Set([GRAPHQL_PATH, GRAPHQL_V1_PATH])

export function routeChannel (route: Pick<RouteOptions, 'url' | 'method'>): AccessChannel {
  const { url } = route
  if (url === '/health' || url === '/metrics' || url.startsWith('/api/health')) return 'free'
  if (url.startsWith('/admin/')) return 'admin'
  if (GRAPHQL_PATHS.has(url)) return 'graphql'
  if (RPC_PATHS.has(url) && [route.method].flat().includes('POST')) return 'json-rpc'
  return 'rest'
}

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * 401 for a key that is missing its mark: unknown, malformed, revoked, or two
 * different ones, in one message whatever the reason (the log keeps it).
 * JSON-RPC: the error for the request's id, or one per item of a batch.
 */
export async function refuseKey (reply: FastifyReply, channel: AccessChannel, rpcIds: JsonRpcId | JsonRpcId[]): Promise<FastifyReply> {
  const error = new ApiKeyInvalidError()
  reply.code(401).type(JSON_TYPE)
  switch (channel) {
    case 'json-rpc': return await reply.send(keyRefusedAnswer(rpcIds))
    case 'graphql': return await reply.send(graphqlErrorBody(error.message, 'UNAUTHENTICATED'))
    // Etherscan's words, whatever the reason: its clients know no other.
    case 'etherscan': return await reply.send(notOk('Invalid API Key'))
    default: return await reply.send(gatewayErrorBody(publicErrorOf(error)))
  }
}

/**
 * 503 for a JSON-RPC request whose key was never seen here while the database
 * cannot be reached to check it: a JSON-RPC error (-32002) for its ids, as
 * the endpoint keeps answering in its own channel. The other APIs' error
 * handlers answer their own shapes.
 */
export async function refuseUncheckedRpcKey (reply: FastifyReply, rpcIds: JsonRpcId | JsonRpcId[]): Promise<FastifyReply> {
  const error = new JsonRpcError('RESOURCE_UNAVAILABLE', `${new DatabaseUnavailableError().message}: the API key cannot be checked; try again shortly`)
  return await reply.code(503).type(JSON_TYPE).send(jsonRpcAnswer(rpcIds, error))
}

function jsonRpcAnswer (ids: JsonRpcId | JsonRpcId[], error: JsonRpcError): string {
  return JSON.stringify(jsonRpcErrorBody(ids, error))
}

/** 429. JSON-RPC: the error for the request's id, or an array of them, one per item, for a batch. */
export async function refuseOverLimit (reply: FastifyReply, channel: AccessChannel, rpcIds: JsonRpcId | JsonRpcId[]): Promise<FastifyReply> {
  const error = new RateLimitedError()
  reply.code(429).type(JSON_TYPE)
  switch (channel) {
    case 'json-rpc': return await reply.send(overLimitAnswer(rpcIds))
    case 'graphql': return await reply.send(graphqlErrorBody(error.message, 'RATE_LIMITED'))
    case 'etherscan': return await reply.send(notOk('Max rate limit reached'))
    // Coded, as a 401 is: {statusCode, code, error, message}.
    default: return await reply.send(gatewayErrorBody(publicErrorOf(error)))
  }
}
