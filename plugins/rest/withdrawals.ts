// Beacon-chain withdrawals, as Blockscout lists them. A clique chain on Geth
// 1.13 never reaches Shanghai, so its blocks carry no withdrawals (the node's
// blocks have no `withdrawals` field) and every list is empty; a block that
// is not indexed is still a 404, as for its other lists.
import { addressHashParams, intString, itemsCount, message, query, validationError, type RestApp } from './schemas.ts'
import { blockNumberOf, blockParams } from './blocks.ts'
import { NotFoundError } from '../../core/errors.ts'
import { listCursor } from './pages.ts'

const withdrawal = {
  type: 'object',
  properties: {
    index: { type: 'integer' },
    validator_index: { type: 'integer' },
    block_number: { type: 'integer' },
    receiver: { type: 'object', additionalProperties: true },
    amount: intString,
    timestamp: { type: 'string' }
  }
} as const
const withdrawalList = listCursor({ index: { type: 'integer', minimum: 0 }, items_count: itemsCount })
const listResponse = withdrawalList.response(withdrawal)
const NONE = { items: [], next_page_params: null } as const

export async function withdrawalRoutes (app: RestApp): Promise<void> {
  app.get('/withdrawals', {
    schema: { tags: ['withdrawals'], summary: 'Beacon withdrawals, newest first: none on a clique chain', querystring: query(withdrawalList.params), response: { 200: listResponse, 422: validationError } }
  }, async () => NONE)

  app.get('/blocks/:block_hash_or_number_param/withdrawals', {
    schema: {
      tags: ['blocks'],
      summary: 'The block\'s beacon withdrawals: none on a clique chain; 404 for a block not indexed',
      params: blockParams,
      querystring: query(withdrawalList.params),
      response: { 200: listResponse, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    if (await blockNumberOf(app.queries, request.params.block_hash_or_number_param) === undefined) throw new NotFoundError()
    return NONE
  })

  app.get('/addresses/:address_hash_param/withdrawals', {
    schema: {
      tags: ['addresses'],
      summary: 'Beacon withdrawals to the address: none on a clique chain',
      params: addressHashParams,
      querystring: query(withdrawalList.params),
      response: { 200: listResponse, 422: validationError }
    }
  }, async () => NONE)
}
