// What a failure tells a client, and the body each API says it in. Every
// error answer of the gateway is built here (plugins/errors sends them): one
// classification (a client's mistake, a coded error that says why, or an
// internal failure that is hidden) and one body per channel. docs/errors.md
// lists the codes and the shapes.
import { STATUS_CODES } from 'node:http'
import { DatabaseUnavailableError, isCodedError } from './errors.ts'
import { isDatabaseUnavailable } from './db/unavailable.ts'
import { JsonRpcError, errorResponse, type JsonRpcErrorName, type JsonRpcId, type JsonRpcResponse } from './json-rpc/errors.ts'

/**
 * `client`: a 4xx, the request's fault; `coded`: a 5xx of core/errors.ts's
 * catalogue, whose message is written for clients (the database down, the
 * faucet empty); `internal`: anything else, answered as a bare 500.
 */
export type ErrorClass = 'client' | 'coded' | 'internal'

/** What a client may learn of a failure. `code` is the error's own (GW_ERR_*, or Fastify's FST_ERR_* for a 4xx). */
export type PublicError = { kind: ErrorClass, status: number, code: string | undefined, message: string }

export const INTERNAL_MESSAGE = 'Internal server error'

/** The channels, each with its own shape (plugins/auth/channel.ts says which route is which). */
export type ErrorChannel = 'gateway' | 'blockscout' | 'etherscan' | 'stats' | 'json-rpc' | 'graphql'

export function publicErrorOf (error: unknown): PublicError {
  // The database down or restarting (plugins/db supervises an embedded one): a wait, not a failure.
  if (isDatabaseUnavailable(error)) {
    const unavailable = new DatabaseUnavailableError()
    return { kind: 'coded', status: unavailable.statusCode, code: unavailable.code, message: unavailable.message }
  }
  const { statusCode, code, message } = (error ?? {}) as { statusCode?: unknown, code?: unknown, message?: unknown }
  const status = typeof statusCode === 'number' ? statusCode : 500
  if (status < 500) return { kind: 'client', status, code: typeof code === 'string' ? code : undefined, message: String(message) }
  if (isCodedError(error)) return { kind: 'coded', status, code: error.code, message: error.message }
  return { kind: 'internal', status: 500, code: undefined, message: INTERNAL_MESSAGE }
}

/** Gateway routes outside the APIs below (the faucet, the admin API, unknown routes): `{statusCode, code, error, message}`. */
export function gatewayErrorBody ({ kind, status, code, message }: PublicError): object {
  if (kind === 'internal') return { statusCode: 500, error: 'Internal Server Error', message }
  return { statusCode: status, code, error: STATUS_CODES[status] ?? 'Error', message }
}

/** Blockscout's REST API (/api/v2): `{message}` alone, as its front end reads it. */
export function blockscoutErrorBody ({ message }: PublicError): object {
  return { message }
}

/** The Etherscan-style /api: its envelope, the reason as the result (docs/etherscan-api.md). */
export function etherscanErrorBody ({ kind, message }: PublicError): object {
  return { status: '0', message: 'NOTOK', result: kind === 'internal' ? 'Something went wrong.' : message }
}

/** gRPC status codes, which the Stats API's gateway answers in its bodies. */
const GRPC = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, INTERNAL: 13, UNAVAILABLE: 14 } as const

/** The Stats API (Blockscout's stats service, gRPC behind a gateway): `{code, message}` with a gRPC code. */
export function statsErrorBody ({ kind, status, message }: PublicError): object {
  if (kind === 'internal') return { code: GRPC.INTERNAL, message: 'internal error' }
  if (status === 503) return { code: GRPC.UNAVAILABLE, message }
  if (status >= 500) return { code: GRPC.INTERNAL, message }
  return { code: status === 404 ? GRPC.NOT_FOUND : GRPC.INVALID_ARGUMENT, message }
}

/**
 * The Stats API's status for a thrown error: as the service's gateway, any
 * request it cannot take is 400 (a gRPC INVALID_ARGUMENT), except our own
 * coded refusals, which keep theirs. (Its routes answer their 404s themselves.)
 */
export function statsErrorStatus ({ kind, status, code }: PublicError): number {
  if (kind !== 'client' || code?.startsWith('GW_ERR_') === true) return status
  return 400
}

/** JSON-RPC: the error for the request's id, or one per item of a batch. */
export function jsonRpcErrorBody (ids: JsonRpcId | JsonRpcId[], error: JsonRpcError): JsonRpcResponse | JsonRpcResponse[] {
  return Array.isArray(ids) ? ids.map((id) => errorResponse(id, error)) : errorResponse(ids, error)
}

/** The JSON-RPC error a failure outside the handler's own (the body, a hook) is answered with. */
export function jsonRpcErrorOf ({ kind, status, message }: PublicError, name?: JsonRpcErrorName): JsonRpcError {
  if (name !== undefined) return new JsonRpcError(name, message)
  if (kind === 'internal') return new JsonRpcError('INTERNAL_ERROR')
  if (status === 503) return new JsonRpcError('RESOURCE_UNAVAILABLE', message)
  if (status === 429) return new JsonRpcError('LIMIT_EXCEEDED', message)
  if (status === 401) return new JsonRpcError('UNAUTHORIZED', message)
  return new JsonRpcError(kind === 'client' ? 'INVALID_REQUEST' : 'INTERNAL_ERROR', message)
}

/** GraphQL: one error of `errors[]` (graphql-js's JSON with the code in extensions). */
export type GraphqlErrorJson = { message: string, extensions: { code: string } & Record<string, unknown> } & Record<string, unknown>

/** GraphQL's code for a coded error: the catalogue's without its prefix (GW_ERR_DATABASE_UNAVAILABLE is DATABASE_UNAVAILABLE). */
export const graphqlCodeOf = (code: string): string => code.replace(/^GW_ERR_/, '')

/** The code of a failure met outside an operation: a coded one's, BAD_REQUEST for another client's mistake, INTERNAL_SERVER_ERROR. */
export function graphqlErrorCodeOf ({ kind, code }: PublicError): string {
  if (code?.startsWith('GW_ERR_') === true) return graphqlCodeOf(code)
  return kind === 'client' ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR'
}

/** GraphQL, refused before any operation ran (a key, a limit): no data, one error. */
export function graphqlErrorBody (message: string, code: string): { data: null, errors: GraphqlErrorJson[] } {
  return { data: null, errors: [{ message, extensions: { code } }] }
}
