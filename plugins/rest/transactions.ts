import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { methodOf, presentTokenTransfer, tokenTransferAddresses, transactionAddresses, transactionJson } from '../present/present-transaction.ts'
import { itemsCount, message, query, transaction, transactionHashParams, validationError, type RestApp } from './schemas.ts'
import { JSON_TEXT, hashBytes, jsonPage } from '../present/present.ts'
import { blockIndexCursor, listCursor } from './pages.ts'
import { blockNumberParam } from './list-schemas.ts'
import { NotFoundError } from '../../core/errors.ts'
import { decodeTransactionInput, decodeTransactionInputs } from '../present/decodings.ts'
import type { Decoder } from '../../core/decode/index.ts'
import type { AddressNameReader } from '../../core/address-names/index.ts'

/** The detail shows this many token transfers and says whether there are more. */
const DETAIL_TOKEN_TRANSFERS = 10

/** Newest first, resuming below (block, index); a `filter` sent is kept. */
export const transactionList = listCursor({ block_number: blockNumberParam, index: { type: 'integer', minimum: 0 }, items_count: itemsCount }, { filter: { type: 'string' } })

export async function transactionRoutes (app: RestApp, { decoder, names }: { decoder: Decoder, names: AddressNameReader }): Promise<void> {
  app.get('/transactions', {
    schema: {
      tags: ['transactions'],
      summary: 'Transactions, newest first (50 a page)',
      querystring: query({
        filter: { type: 'string', enum: ['validated', 'pending'] },
        type: { type: 'string', enum: ['blob_transaction'] },
        ...transactionList.params
      }),
      response: {
        200: transactionList.response(transaction),
        422: validationError
      }
    }
  }, async (request, reply) => {
    const q = request.query
    // Pending transactions are not indexed and clique Geth 1.13 has no blobs.
    if (q.filter === 'pending' || q.type !== undefined) return { items: [], next_page_params: null }
    const cursor = blockIndexCursor(q)
    const [rows, confirmation] = await Promise.all([app.queries.listTransactions({ cursor }), app.confirmationDuration()])
    const shown = rows.slice(0, PAGE_SIZE)
    const [decoded, named] = await Promise.all([decodeTransactionInputs(decoder, shown), names.read(shown.flatMap(transactionAddresses))])
    return await reply.type(JSON_TEXT).send(jsonPage(transactionList.page(rows, (tx) => transactionJson(tx, confirmation, decoded(tx), named),
      (last) => ({ block_number: last.block_number, index: last.transaction_index, items_count: PAGE_SIZE, ...(q.filter === undefined ? {} : { filter: q.filter }) }))))
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
    const shownTransfers = transfers.slice(0, DETAIL_TOKEN_TRANSFERS)
    const named = await names.read([...transactionAddresses(tx), ...shownTransfers.flatMap(tokenTransferAddresses)])
    // The transfers' method is the transaction's own, decoded above.
    const method = methodOf(tx.input, decoded)
    const shown = JSON.stringify(shownTransfers.map((t) => presentTokenTransfer(t, named, method)))
    return await reply.type(JSON_TEXT).send(transactionJson(tx, await app.confirmationDuration(), decoded, named, shown, String(transfers.length > DETAIL_TOKEN_TRANSFERS)))
  })

  app.get('/main-page/transactions', {
    schema: { tags: ['main-page'], summary: 'The 6 newest transactions', querystring: query(), response: { 200: { type: 'array', items: transaction } } }
  }, async (_request, reply) => {
    const [rows, confirmation] = await Promise.all([app.queries.listTransactions({ cursor: undefined, limit: 6 }), app.confirmationDuration()])
    const newest = rows.slice(0, 6)
    const [decoded, named] = await Promise.all([decodeTransactionInputs(decoder, newest), names.read(newest.flatMap(transactionAddresses))])
    return await reply.type(JSON_TEXT).send('[' + newest.map((tx) => transactionJson(tx, confirmation, decoded(tx), named)).join(',') + ']')
  })
}
