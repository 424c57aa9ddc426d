import { PAGE_SIZE } from '../../core/queries/page-size.ts'
import { presentTokenTransfer, transactionJson } from './present-transaction.ts'
import { itemsCount, message, page, query, transaction, transactionHashParams, validationError, type RestApp } from './schemas.ts'
import { JSON_TEXT, hashBytes, jsonPage } from './present.ts'
import { blockIndexCursor } from './pages.ts'
import { NotFoundError } from '../../core/errors.ts'
import { decodeTransactionInput, decodeTransactionInputs } from './decodings.ts'
import type { Decoder } from '../../core/decode/index.ts'

/** The detail shows this many token transfers and says whether there are more. */
const DETAIL_TOKEN_TRANSFERS = 10

export async function transactionRoutes (app: RestApp, { decoder }: { decoder: Decoder }): Promise<void> {
  app.get('/transactions', {
    schema: {
      tags: ['transactions'],
      summary: 'Transactions, newest first (50 a page)',
      querystring: query({
        filter: { type: 'string', enum: ['validated', 'pending'] },
        type: { type: 'string', enum: ['blob_transaction'] },
        block_number: { type: 'integer', minimum: 0 },
        index: { type: 'integer', minimum: 0 },
        items_count: itemsCount
      }),
      response: {
        200: page(transaction, { block_number: { type: 'integer' }, index: { type: 'integer' }, items_count: { type: 'integer' }, filter: { type: 'string' } }),
        422: validationError
      }
    }
  }, async (request, reply) => {
    const q = request.query
    // Pending transactions are not indexed and clique Geth 1.13 has no blobs.
    if (q.filter === 'pending' || q.type !== undefined) return { items: [], next_page_params: null }
    const cursor = blockIndexCursor(q)
    const [rows, confirmation] = await Promise.all([app.queries.listTransactions({ cursor }), app.confirmationDuration()])
    const items = rows.slice(0, PAGE_SIZE)
    const last = items[items.length - 1]
    const decoded = await decodeTransactionInputs(decoder, items)
    return await reply.type(JSON_TEXT).send(jsonPage({
      items: items.map((tx) => transactionJson(tx, confirmation, decoded(tx))),
      next_page_params: rows.length > PAGE_SIZE && last !== undefined
        ? { block_number: last.block_number, index: last.transaction_index, items_count: PAGE_SIZE, ...(q.filter === undefined ? {} : { filter: q.filter }) }
        : null
    }))
  })

  app.get('/transactions/:transaction_hash_param', {
    schema: {
      tags: ['transactions'],
      summary: 'A transaction by hash, with its first token transfers',
      params: transactionHashParams,
      querystring: query(),
      response: { 200: transaction, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const hash = hashBytes(request.params.transaction_hash_param)
    const tx = await app.queries.findTransaction(hash)
    if (tx === undefined) throw new NotFoundError()
    const [transfers, decoded] = await Promise.all([app.queries.listTransactionTokenTransfers({ hash, limit: DETAIL_TOKEN_TRANSFERS }), decodeTransactionInput(decoder, tx)])
    const shown = JSON.stringify(transfers.slice(0, DETAIL_TOKEN_TRANSFERS).map(presentTokenTransfer))
    return await reply.type(JSON_TEXT).send(transactionJson(tx, await app.confirmationDuration(), decoded, shown, String(transfers.length > DETAIL_TOKEN_TRANSFERS)))
  })

  app.get('/main-page/transactions', {
    schema: { tags: ['main-page'], summary: 'The 6 newest transactions', querystring: query(), response: { 200: { type: 'array', items: transaction } } }
  }, async (_request, reply) => {
    const [rows, confirmation] = await Promise.all([app.queries.listTransactions({ cursor: undefined, limit: 6 }), app.confirmationDuration()])
    const newest = rows.slice(0, 6)
    const decoded = await decodeTransactionInputs(decoder, newest)
    return await reply.type(JSON_TEXT).send('[' + newest.map((tx) => transactionJson(tx, confirmation, decoded(tx))).join(',') + ']')
  })
}
