// A transaction's execution: its raw trace (Parity style, from the indexed
// call frames) and its balance changes (coin ones from Geth's prestateTracer).
import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { rawTrace, stateChange } from './list-schemas.ts'
import { presentRawTrace } from '../present/present-internal-transaction.ts'
import { presentStateChanges, stateChangeAddresses } from '../present/present-state-change.ts'
import { message, page, query, transactionHashParams, validationError, type RestApp } from './schemas.ts'
import { hashBytes } from '../present/present.ts'
import { NotFoundError } from '../../core/errors.ts'
import type { AddressNameReader } from '../../core/address-names/index.ts'

export async function transactionTraceRoutes (app: RestApp, { names }: { names: AddressNameReader }): Promise<void> {
  const queries = app.queries

  app.get('/transactions/:transaction_hash_param/raw-trace', {
    schema: {
      tags: ['transactions'],
      summary: 'The transaction\'s call frames as Parity-style traces',
      params: transactionHashParams,
      querystring: query(),
      response: { 200: rawTrace, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const hash = hashBytes(request.params.transaction_hash_param)
    const frames = await queries.listTraceFrames(hash)
    // Every indexed transaction has at least its own frame.
    if (frames.length === 0 && !await queries.transactionExists(hash)) throw new NotFoundError()
    return presentRawTrace(request.params.transaction_hash_param.toLowerCase(), frames)
  })

  app.get('/transactions/:transaction_hash_param/state-changes', {
    schema: {
      tags: ['transactions'],
      summary: 'Coin and token balances before and after the transaction, of every address it changed',
      params: transactionHashParams,
      querystring: query({ state_changes: { type: ['string', 'null'] }, items_count: { type: 'integer', minimum: 1 } }),
      response: { 200: page(stateChange, { items_count: { type: 'integer' }, state_changes: { type: 'null' } }), 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const hash = hashBytes(request.params.transaction_hash_param)
    const transfers = await queries.listTransactionTokenTransfersPage({ hash, types: undefined, cursor: undefined, limit: 'all' })
    const changes = await queries.readStateChanges({ rpc: app.geth.rpc, hash, transfers })
    if (changes === undefined) throw new NotFoundError()
    // One transaction's changes are computed whole; Blockscout pages them by a running count.
    const all = presentStateChanges(changes, await names.read(stateChangeAddresses(changes)))
    const from = Math.min(request.query.items_count ?? 0, all.length)
    const items = all.slice(from, from + PAGE_SIZE)
    return { items, next_page_params: from + PAGE_SIZE < all.length ? { items_count: from + PAGE_SIZE, state_changes: null } : null }
  })
}
