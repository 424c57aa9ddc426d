// Blockscout's transaction summary comes from its interpretation service,
// which this gateway does not run: the route answers as Blockscout does with
// that service switched off, so an explorer front end hides its summary panel
// instead of showing the 400 of an unknown route.
import type { FastifyInstance } from 'fastify'
import { message, query, transactionHashParams, validationError } from './schemas.ts'

const SERVICE_DISABLED = 'Transaction Interpretation Service is disabled'

export async function transactionSummaryRoutes (app: FastifyInstance): Promise<void> {
  app.get('/transactions/:transaction_hash_param/summary', {
    schema: {
      tags: ['transactions'],
      summary: 'A human-readable summary of the transaction: 403, no interpretation service runs here',
      params: transactionHashParams,
      querystring: query({ just_request_body: { type: 'boolean' } }),
      response: { 403: message, 422: validationError }
    }
  }, async (_request, reply) => await reply.code(403).send({ message: SERVICE_DISABLED }))
}
