// The one way a request's failure is answered and logged: every error
// handler (the root's and each API's) calls sendError with its channel; the
// bodies are core/error-answers.ts's.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import {
  blockscoutErrorBody, etherscanErrorBody, gatewayErrorBody, graphqlErrorBody, graphqlErrorCodeOf, jsonRpcErrorBody, jsonRpcErrorOf, publicErrorOf, statsErrorBody, statsErrorStatus,
  type ErrorChannel, type PublicError
} from '../core/error-answers.ts'
import type { JsonRpcErrorName, JsonRpcId } from '../core/json-rpc/errors.ts'

const JSON_TYPE = 'application/json; charset=utf-8'

export type SendErrorOptions = {
  /** JSON-RPC: the id the answer is for, or one per item of a batch (null when the body was never read). */
  rpcIds?: JsonRpcId | JsonRpcId[]
  /** JSON-RPC: the error to answer, when the class alone does not say it. */
  rpcError?: JsonRpcErrorName
  /** What `error` is answered as, when it is not itself what the client may see (a node's failure as NodeUnavailableError). */
  answerAs?: unknown
}

/**
 * Logs a request's failure one way, by its class: a client's mistake at
 * debug, a coded 5xx (the database down, the faucet empty) at warn with its
 * message, anything else at error with its stack. `log` is the request's,
 * which carries its id (plugins/request-log.ts).
 */
export function logRequestError (log: FastifyBaseLogger, error: unknown, answered: PublicError, channel: ErrorChannel): void {
  const { kind, status, code } = answered
  if (kind === 'internal') log.error({ err: error, channel }, 'request failed')
  else if (kind === 'coded') log.warn({ err: (error as Error).message, code, status, channel }, 'request could not be served now')
  else log.debug({ err: (error as Error).message, code, status, channel }, 'request refused')
}

/** Answers `error` in the channel's shape with its status, and logs it (logRequestError). */
export async function sendError (request: FastifyRequest, reply: FastifyReply, channel: ErrorChannel, error: unknown, options: SendErrorOptions = {}): Promise<FastifyReply> {
  const answered = publicErrorOf(options.answerAs ?? error)
  logRequestError(request.log, error, answered, channel)
  switch (channel) {
    case 'blockscout': {
      // A failed validation answers Blockscout's 422 {"errors": [...]} (plugins/rest/validation.ts words them).
      const { validation, blockscoutErrors } = error as { validation?: unknown, blockscoutErrors?: unknown[] }
      if (validation !== undefined) return await reply.code(422).send({ errors: blockscoutErrors ?? [] })
      return await reply.code(answered.status).send(blockscoutErrorBody(answered))
    }
    case 'etherscan': return await reply.code(answered.status).send(etherscanErrorBody(answered))
    case 'stats': {
      const status = statsErrorStatus(answered)
      return await reply.code(status).send(statsErrorBody({ ...answered, status }))
    }
    case 'json-rpc': {
      const body = jsonRpcErrorBody(options.rpcIds ?? null, jsonRpcErrorOf(answered, options.rpcError))
      return await reply.code(answered.status).type(JSON_TYPE).send(JSON.stringify(body))
    }
    // Outside an operation (a hook): no data, one error. Operations' errors go through mercurius's errorFormatter (plugins/graphql/errors.ts), over the same classes.
    case 'graphql': return await reply.code(answered.status).send(graphqlErrorBody(answered.message, graphqlErrorCodeOf(answered)))
    case 'gateway': return await reply.code(answered.status).send(gatewayErrorBody(answered))
  }
}
