// GraphQL's own error channel: every error in `errors[]` carries
// `extensions.code`. GraphQL errors answer HTTP 200 with the rest of the
// result, as Blockscout does (its tests expect 200 for parse, validation,
// complexity and resolver errors); only a body that is not one GraphQL request
// gets a 4xx (see index.ts). Internal failures are logged and masked.
import mercurius from 'mercurius'
import { GraphQLError, Kind, type DocumentNode, type ExecutionResult } from 'graphql'
import type { FastifyBaseLogger } from 'fastify'
import { clientMessage } from './spelling.ts'
import { isDatabaseUnavailable } from '../../core/db/unavailable.ts'
import { isCodedError } from '../../core/errors.ts'
import { graphqlCodeOf, publicErrorOf, type PublicError } from '../../core/error-answers.ts'
import { logRequestError } from '../send-error.ts'

export const ERROR_CODES = {
  PARSE: 'GRAPHQL_PARSE_FAILED',
  VALIDATION: 'GRAPHQL_VALIDATION_FAILED',
  TOO_DEEP: 'QUERY_TOO_DEEP',
  TOO_COMPLEX: 'QUERY_TOO_COMPLEX',
  TOO_MANY_SUBSCRIPTIONS: 'TOO_MANY_SUBSCRIPTIONS',
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  NOT_FOUND: 'NOT_FOUND',
  INTERNAL: 'INTERNAL_SERVER_ERROR',
  DATABASE_UNAVAILABLE: 'DATABASE_UNAVAILABLE',
  BAD_REQUEST: 'BAD_REQUEST'
} as const

const { ErrorWithProps } = mercurius

/** A client's mistake found while resolving: the field is null and the error says why. */
export const userError = (message: string, code: string = ERROR_CODES.BAD_USER_INPUT): Error => new ErrorWithProps(message, { code }, 200)

export const notFound = (message: string): Error => userError(message, ERROR_CODES.NOT_FOUND)

/**
 * mercurius, when a query does not parse, tries it as a JSON-encoded AST: a
 * query of `0` or `{}` then reaches the hooks as a number or a plain object.
 * Refused as the syntax error it is.
 */
export function assertDocument (document: unknown): asserts document is DocumentNode {
  if ((document as { kind?: unknown } | null)?.kind !== Kind.DOCUMENT) {
    throw new GraphQLError('Syntax Error: the query is not a GraphQL document.', { extensions: { code: ERROR_CODES.PARSE } })
  }
}

/**
 * graphql-js's parser (and its lexer) report a position in the source text
 * and no AST node, since there is no tree yet; validation and execution
 * errors always carry the nodes they are about.
 */
const isParseError = (error: GraphQLError): boolean => error.nodes === undefined && error.source !== undefined && error.positions !== undefined

/** Errors mercurius wraps (validation, depth) carry the real ones in `.errors`. */
function unwrap (error: GraphQLError): GraphQLError[] {
  const inner = (error.originalError as { errors?: unknown } | undefined)?.errors
  if (!Array.isArray(inner)) return [error]
  return inner.map((e) => e instanceof GraphQLError ? e : new GraphQLError((e as Error).message, { originalError: e as Error }))
}

/** The code of an error in `errors[]`, undefined for an internal failure (to be masked). */
export function codeOf (error: GraphQLError): string | undefined {
  const original = error.originalError as (Error & { code?: string, extensions?: { code?: string } }) | undefined
  if (typeof error.extensions?.code === 'string') return error.extensions.code
  if (typeof original?.extensions?.code === 'string') return original.extensions.code
  if (original?.code === 'MER_ERR_GQL_QUERY_DEPTH') return ERROR_CODES.TOO_DEEP
  if (isParseError(error)) return ERROR_CODES.PARSE
  // No original error: graphql-js's own validation (unknown field, bad argument, a malformed scalar).
  if (original === undefined || original instanceof GraphQLError) return ERROR_CODES.VALIDATION
  return undefined
}

/**
 * An error thrown in a subscription hook, with the code formatErrors would
 * give it over HTTP: mercurius sends those as they are, unformatted.
 */
export function withCode (error: unknown): unknown {
  if (!(error instanceof GraphQLError) || typeof error.extensions.code === 'string') return error
  const code = codeOf(error)
  if (code === undefined) return error
  return new GraphQLError(error.message, { nodes: error.nodes, originalError: error.originalError, extensions: { ...error.extensions, code } })
}

type Original = Error & { code?: string, statusCode?: number, errors?: unknown }

/** Errors of the request stream when the client goes away before its body has come. */
const CLOSED_MID_REQUEST_CODES = new Set(['ECONNRESET', 'ERR_STREAM_PREMATURE_CLOSE'])

/**
 * The HTTP status: 200 for anything GraphQL said about the operation; the
 * request's own status when the body was not one GraphQL request (not JSON,
 * too large, no query, `variables` that are not JSON: Fastify's FST_ERR_*, a
 * body-schema error or mercurius's own), 405 for a subscription over GET.
 */
function statusOf (errors: readonly GraphQLError[]): number {
  for (const error of errors) {
    const original = error.originalError as Original | undefined
    if (original?.code?.startsWith('FST_ERR') === true) return original.statusCode ?? 400
    // The body never fully came: the client closed its connection mid-request (Fastify marks it 400).
    if (original?.code !== undefined && CLOSED_MID_REQUEST_CODES.has(original.code)) return original.statusCode ?? 400
    if (original?.code === 'MER_ERR_METHOD_NOT_ALLOWED') return 405
    // A GET without a query, or whose `variables` or `extensions` are not JSON: not a GraphQL request at all.
    if (original?.code === 'MER_ERR_GQL_PERSISTED_QUERY_NOT_FOUND') return 400
    if (original?.code === 'MER_ERR_GQL_VALIDATION' && original instanceof SyntaxError) return 400
    if (Array.isArray(original?.errors) && original.errors.some((e) => !(e instanceof GraphQLError))) return 400
  }
  return 200
}

/** What a client may see of an error a resolver threw: a coded one (the database down included) says why; others are hidden. */
function servedOf (error: GraphQLError): PublicError | undefined {
  const original = error.originalError
  return isDatabaseUnavailable(original) || isCodedError(original) ? publicErrorOf(original) : undefined
}

/**
 * mercurius errorFormatter: a code on every error, internals hidden, each
 * logged as every error handler logs (plugins/send-error.ts). A coded 5xx
 * (the database down) answers its status, as REST does.
 */
export function formatErrors (execution: ExecutionResult, context: { reply?: { log: FastifyBaseLogger }, app: { log: FastifyBaseLogger } }) {
  const log = context.reply?.log ?? context.app.log
  const failures = execution.errors ?? []
  const unavailable = failures.map(servedOf).find((served) => served !== undefined && served.status >= 500)
  const statusCode = unavailable?.status ?? statusOf(failures)
  const notGraphql = statusCode !== 200 && unavailable === undefined
  if (notGraphql) log.debug({ statusCode, errors: execution.errors?.map((e) => e.message) }, 'not a GraphQL request')
  const errors = failures.flatMap(unwrap).map((error) => {
    const served = servedOf(error)
    if (served !== undefined) {
      logRequestError(log, error.originalError, served, 'graphql')
      return new GraphQLError(served.message, { path: error.path, nodes: error.nodes, extensions: { code: graphqlCodeOf(served.code!) } }).toJSON()
    }
    const code = notGraphql ? ERROR_CODES.BAD_REQUEST : codeOf(error)
    if (code === undefined) {
      const internal = publicErrorOf(undefined)
      logRequestError(log, error.originalError ?? error, internal, 'graphql')
      return new GraphQLError(internal.message, { path: error.path, nodes: error.nodes, extensions: { code: ERROR_CODES.INTERNAL } }).toJSON()
    }
    return { ...error.toJSON(), message: clientMessage(error), extensions: { ...error.extensions, code } }
  })
  return { statusCode, response: { data: execution.data ?? null, errors } }
}
