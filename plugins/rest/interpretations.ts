// This gateway's own interpretation routes (not Blockscout's): a
// transaction's interpretation (what it was, decoded and named, with its
// summaries) and an address's interpretations, newest first.
import { INTERPRETATIONS_PAGE_SIZE, type Interpreter } from '../../core/interpreter/index.ts'
import { addressHashParams, decoded, message, query, transactionHashParams, validationError, type RestApp } from './schemas.ts'
import { blockIndexCursor, listCursor } from './pages.ts'
import { summary } from './transaction-summary.ts'
import { NotFoundError } from '../../core/errors.ts'

const nullableString = { type: ['string', 'null'] } as const
const addressParam = {
  type: 'object',
  required: ['hash', 'name', 'is_contract', 'is_verified'],
  properties: { hash: { type: 'string' }, name: nullableString, is_contract: { type: 'boolean' }, is_verified: { type: 'boolean' } }
} as const
const addressOrNull = { ...addressParam, type: ['object', 'null'] } as const
const token = {
  type: 'object',
  properties: {
    address: { type: 'string' }, address_hash: { type: 'string' }, name: nullableString, symbol: nullableString, decimals: nullableString, type: { type: 'string' }, icon_url: { type: 'null' }
  }
} as const

const interpretation = {
  type: 'object',
  required: ['transaction', 'decoded_input', 'token_transfers', 'logs', 'internal_calls', 'addresses', 'summaries', 'summaries_text'],
  properties: {
    transaction: {
      type: 'object',
      properties: {
        hash: { type: 'string' },
        block_number: { type: 'integer' },
        block_hash: { type: 'string' },
        position: { type: 'integer' },
        timestamp: { type: 'string' },
        status: { type: 'string', enum: ['ok', 'error'] },
        error: nullableString,
        from: addressParam,
        to: addressOrNull,
        created_contract: addressOrNull,
        value: { type: 'string' },
        raw_input: { type: 'string' }
      }
    },
    decoded_input: decoded(false),
    token_transfers: {
      type: 'array',
      items: { type: 'object', properties: { log_index: { type: 'integer' }, token, from: addressParam, to: addressParam, amount: nullableString, token_id: nullableString } }
    },
    logs: {
      type: 'array',
      items: { type: 'object', properties: { index: { type: 'integer' }, address: addressParam, topics: { type: 'array', items: nullableString }, data: { type: 'string' }, decoded: decoded(true) } }
    },
    internal_calls: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { type: 'integer' }, type: { type: 'string' }, from: addressParam, to: addressOrNull, created_contract: addressOrNull, value: { type: 'string' }, error: nullableString, success: { type: 'boolean' }
        }
      }
    },
    addresses: { type: 'array', description: 'Every address the transaction touches, named', items: addressParam },
    summaries: { type: ['array', 'null'], description: 'As /summary gives them; null when the transaction failed', items: summary },
    summaries_text: { type: ['array', 'null'], description: 'The summaries as plain text, {native} as COIN_SYMBOL', items: { type: 'string' } }
  }
} as const

/** The interpreter pages an address's interpretations itself (core/interpreter): its cursor is (block, index). */
const interpretationList = listCursor({ block_number: { type: 'integer', minimum: 0 }, index: { type: 'integer', minimum: 0 } })

export async function interpretationRoutes (app: RestApp, { interpreter }: { interpreter: Interpreter }): Promise<void> {
  app.get('/transactions/:transaction_hash_param/interpretation', {
    schema: {
      tags: ['interpretation'],
      summary: 'This gateway\'s own: the transaction decoded and named, its logs, token transfers, internal calls and summaries',
      params: transactionHashParams,
      querystring: query(),
      response: { 200: interpretation, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const found = await interpreter.interpretation(request.params.transaction_hash_param.toLowerCase())
    if (found === undefined) throw new NotFoundError()
    return found
  })

  app.get('/addresses/:address_hash_param/interpretations', {
    schema: {
      tags: ['interpretation'],
      summary: `This gateway's own: the interpretations of the transactions the address sent, received or created, newest first (${INTERPRETATIONS_PAGE_SIZE} a page)`,
      params: addressHashParams,
      querystring: query(interpretationList.params),
      response: { 200: interpretationList.response(interpretation), 422: validationError }
    }
  }, async (request) => {
    const { items, next } = await interpreter.addressInterpretations(request.params.address_hash_param.toLowerCase(), blockIndexCursor(request.query))
    return { items, next_page_params: next === null ? null : { block_number: next.blockNumber, index: next.index } }
  })
}
