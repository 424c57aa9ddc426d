// Internal transactions: the global list, a transaction's and an address's.
// (A block's are in blocks.ts.)
import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { AFTER_ALL } from '../../core/queries/sql/cursor.ts'
import { type InternalTransactionCursor, type InternalTransactionRecord } from '../../core/queries/transactions/internal-transactions.ts'
import { hashParam, internalTransaction, internalTransactionList } from './list-schemas.ts'
import { bigintParam, integerParam, pageSize } from './pages.ts'
import { internalTransactionAddresses, presentInternalTransaction } from '../present/present-internal-transaction.ts'
import { addressHashParams, message, query, transactionHashParams, validationError, type RestApp } from './schemas.ts'
import { hashBytes } from '../present/present.ts'
import { NotFoundError } from '../../core/errors.ts'
import type { AddressNameReader } from '../../core/address-names/index.ts'

const listResponse = internalTransactionList.response(internalTransaction)

type CursorQuery = { block_number?: number, transaction_index?: number, index?: number }

/** Newest-first lists resume below (block, transaction index, trace index). */
function descCursor (q: CursorQuery): InternalTransactionCursor | undefined {
  if (q.block_number === undefined) return undefined
  return { blockNumber: bigintParam(q.block_number, 0), transactionIndex: integerParam(q.transaction_index, AFTER_ALL), index: integerParam(q.index, AFTER_ALL) }
}

export const nextInternalTransactionParams = (size: number) => (last: InternalTransactionRecord) => ({
  block_number: last.block_number, transaction_index: last.transaction_index, index: last.trace_index, items_count: size
})

export async function internalTransactionRoutes (app: RestApp, { names }: { names: AddressNameReader }): Promise<void> {
  const queries = app.queries
  /** Each internal transaction with the page's names. */
  const presenter = async (rows: InternalTransactionRecord[]) => {
    const named = await names.read(rows.flatMap(internalTransactionAddresses))
    return (i: InternalTransactionRecord) => presentInternalTransaction(i, named)
  }

  app.get('/internal-transactions', {
    schema: {
      tags: ['internal-transactions'],
      summary: 'Internal transactions, newest first (50 a page)',
      querystring: query({ transaction_hash: hashParam, limit: { type: ['integer', 'null'] }, ...internalTransactionList.params }),
      response: { 200: listResponse, 422: validationError }
    }
  }, async (request) => {
    const q = request.query
    const size = pageSize(q.limit)
    const rows = await queries.listInternalTransactions({ transaction: q.transaction_hash === undefined ? undefined : hashBytes(q.transaction_hash), cursor: descCursor(q) })
    return internalTransactionList.keysetPage(rows, await presenter(rows), nextInternalTransactionParams(size), q, size)
  })

  app.get('/transactions/:transaction_hash_param/internal-transactions', {
    schema: {
      tags: ['transactions'],
      summary: 'A transaction\'s internal transactions in call order (its own top-level call left out)',
      params: transactionHashParams,
      querystring: query(internalTransactionList.params),
      response: { 200: listResponse, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const hash = hashBytes(request.params.transaction_hash_param)
    if (!await queries.transactionExists(hash)) throw new NotFoundError()
    const rows = await queries.listTransactionInternalTransactions({ hash, afterIndex: integerParam(request.query.index, -1) })
    return internalTransactionList.keysetPage(rows, await presenter(rows), nextInternalTransactionParams(PAGE_SIZE), request.query)
  })

  app.get('/addresses/:address_hash_param/internal-transactions', {
    schema: {
      tags: ['addresses'],
      summary: 'Internal transactions from, to or creating the address, newest first',
      params: addressHashParams,
      querystring: query({ filter: { type: 'string', enum: ['to', 'from'] }, ...internalTransactionList.params }),
      response: { 200: listResponse, 422: validationError }
    }
  }, async (request) => {
    const q = request.query
    const rows = await queries.listAddressInternalTransactions({ address: hashBytes(request.params.address_hash_param), filter: q.filter, cursor: descCursor(q) })
    return internalTransactionList.keysetPage(rows, await presenter(rows), nextInternalTransactionParams(PAGE_SIZE), q)
  })
}
