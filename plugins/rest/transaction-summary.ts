// Blockscout's transaction summary, written by this gateway's own interpreter
// (core/interpreter) instead of Blockscout's closed interpretation service:
// the same answer shapes, 200 with null for a transaction that did not
// succeed or that the node holds pending, 404 for one neither indexed nor
// pending, 422 for a malformed hash.
import type { Interpreter } from '../../core/interpreter/index.ts'
import { message, query, transactionHashParams, validationError, type RestApp } from './schemas.ts'
import { sendJsonText } from '../present/present.ts'
import { NotFoundError } from '../../core/errors.ts'

const variable = {
  type: 'object',
  required: ['type', 'value'],
  properties: {
    type: { type: 'string', enum: ['address', 'token', 'currency', 'method', 'timestamp', 'string'] },
    value: { description: 'A string (currency in human units, timestamp in epoch seconds), or an AddressParam or TokenInfo object' }
  }
} as const

export const summary = {
  type: 'object',
  required: ['summary_template', 'summary_template_variables'],
  properties: {
    summary_template: { type: 'string', description: 'Text with {variable} placeholders; {native} is the coin\'s symbol' },
    summary_template_variables: { type: 'object', additionalProperties: variable }
  }
} as const

const summaryResponse = {
  type: ['object', 'null'],
  description: 'null when the transaction did not succeed or is pending',
  properties: {
    success: { type: 'boolean' },
    data: { type: 'object', required: ['summaries'], properties: { summaries: { type: 'array', items: summary } } }
  }
} as const

export async function transactionSummaryRoutes (app: RestApp, { interpreter }: { interpreter: Interpreter }): Promise<void> {
  app.get('/transactions/:transaction_hash_param/summary', {
    schema: {
      tags: ['transactions'],
      summary: 'A human-readable summary of the transaction (null when it failed or is pending); `just_request_body` is accepted and ignored: no external service is asked',
      params: transactionHashParams,
      querystring: query({ just_request_body: { type: 'boolean' } }),
      response: { 200: summaryResponse, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const summaries = await interpreter.summaries(request.params.transaction_hash_param.toLowerCase())
    if (summaries === undefined) throw new NotFoundError()
    // Blockscout answers a body of null for a transaction that is not ok, or not sealed yet.
    if (summaries === null) return await sendJsonText(reply, 'null')
    return { success: true, data: { summaries } }
  })
}
