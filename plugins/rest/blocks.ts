import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { JSON_TEXT, blockMiner, jsonPage, presentBlock } from '../present/present.ts'
import { block, itemsCount, message, query, transaction, validationError, type RestApp } from './schemas.ts'
import { transactionAddresses, transactionJson } from '../present/present-transaction.ts'
import { internalTransactionAddresses, presentInternalTransaction } from '../present/present-internal-transaction.ts'
import { blockIndexList, blockNumberParam, integer, internalTransaction } from './list-schemas.ts'
import { bigintParam, integerParam, listCursor } from './pages.ts'
import { NotFoundError } from '../../core/errors.ts'
import { decodeTransactionInputs } from '../present/decodings.ts'
import type { Decoder } from '../../core/decode/index.ts'
import type { Queries } from '../../core/queries/index.ts'
import type { AddressNameReader } from '../../core/address-names/index.ts'

const NUMBER_OR_HASH = '^([0-9]+|0x[A-Fa-f0-9]{64})$'
export const blockParams = {
  type: 'object', required: ['block_hash_or_number_param'], properties: { block_hash_or_number_param: { type: 'string', pattern: NUMBER_OR_HASH } }
} as const

/** The indexed block's number for a number-or-hash path parameter, or undefined. */
export async function blockNumberOf (queries: Queries, id: string): Promise<number | undefined> {
  if (id.startsWith('0x')) return await queries.findBlockNumber({ hash: Buffer.from(id.slice(2), 'hex') })
  return Number.isSafeInteger(Number(id)) ? await queries.findBlockNumber({ number: Number(id) }) : undefined
}

const blockList = listCursor({ block_number: blockNumberParam, items_count: itemsCount })
/** A block's internal transactions resume after (transaction index, trace index). */
const blockInternalTransactionList = listCursor({ transaction_index: integer, index: integer, items_count: itemsCount })

export async function blockRoutes (app: RestApp, { decoder, names }: { decoder: Decoder, names: AddressNameReader }): Promise<void> {
  app.get('/blocks', {
    schema: {
      tags: ['blocks'],
      summary: 'Blocks, newest first (50 a page)',
      querystring: query({ type: { type: 'string', enum: ['block', 'uncle', 'reorg'] }, ...blockList.params }),
      response: { 200: blockList.response(block), 422: validationError }
    }
  }, async (request) => {
    // A clique chain has no uncles, and reorged blocks are not kept.
    if ((request.query.type ?? 'block') !== 'block') return { items: [], next_page_params: null }
    const rows = await app.queries.listBlocks({ before: request.query.block_number === undefined ? undefined : bigintParam(request.query.block_number, 0) })
    const named = await names.read(rows.map(blockMiner))
    return blockList.page(rows, (b) => presentBlock(b, 'list', named), (last) => ({ block_number: last.number, items_count: PAGE_SIZE }))
  })

  app.get('/blocks/:block_hash_or_number_param', {
    schema: {
      tags: ['blocks'],
      summary: 'A block by number or hash',
      params: blockParams,
      querystring: query(),
      response: { 200: block, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const id = request.params.block_hash_or_number_param
    const key = id.startsWith('0x') ? { hash: Buffer.from(id.slice(2), 'hex') } : { number: Number(id) }
    const found = 'number' in key && !Number.isSafeInteger(key.number) ? undefined : await app.queries.findBlock(key)
    if (found === undefined) throw new NotFoundError()
    return presentBlock(found, 'detail', await names.read([blockMiner(found)]))
  })

  app.get('/blocks/:block_hash_or_number_param/transactions', {
    schema: {
      tags: ['blocks'],
      summary: 'The block\'s transactions in index order; `type` keeps one transaction type',
      params: blockParams,
      querystring: query({
        type: { type: 'string', enum: ['coin_transfer', 'contract_call', 'contract_creation', 'token_transfer', 'token_creation'] },
        ...blockIndexList.params
      }),
      response: {
        200: blockIndexList.response(transaction),
        404: message,
        422: validationError
      }
    }
  }, async (request, reply) => {
    const number = await blockNumberOf(app.queries, request.params.block_hash_or_number_param)
    if (number === undefined) throw new NotFoundError()
    const [rows, confirmation] = await Promise.all([app.queries.listBlockTransactions({ blockNumber: number, type: request.query.type, afterIndex: integerParam(request.query.index, -1) }), app.confirmationDuration()])
    const [decoded, named] = await Promise.all([decodeTransactionInputs(decoder, rows), names.read(rows.flatMap(transactionAddresses))])
    return await reply.type(JSON_TEXT).send(jsonPage(blockIndexList.keysetPage(rows, (tx) => transactionJson(tx, confirmation, decoded(tx), named),
      (last) => ({ block_number: last.block_number, index: last.transaction_index, items_count: PAGE_SIZE }), request.query)))
  })

  app.get('/blocks/:block_hash_or_number_param/internal-transactions', {
    schema: {
      tags: ['blocks'],
      summary: 'The block\'s internal transactions in execution order (top-level calls left out)',
      params: blockParams,
      querystring: query({
        // Declared by Blockscout, which does not apply them either (shared/api/rest-v2.md §5.1).
        internal_type: { type: 'string', enum: ['call', 'create', 'create2', 'reward', 'selfdestruct', 'stop'] },
        call_type: { type: 'string', enum: ['call', 'callcode', 'delegatecall', 'staticcall'] },
        ...blockInternalTransactionList.params
      }),
      response: {
        200: blockInternalTransactionList.response(internalTransaction),
        404: message,
        422: validationError
      }
    }
  }, async (request, reply) => {
    const number = await blockNumberOf(app.queries, request.params.block_hash_or_number_param)
    if (number === undefined) throw new NotFoundError()
    const q = request.query
    const after = q.transaction_index === undefined ? undefined : { transactionIndex: integerParam(q.transaction_index, 0), index: integerParam(q.index, -1) }
    const rows = await app.queries.listBlockInternalTransactions({ blockNumber: number, after })
    const named = await names.read(rows.flatMap(internalTransactionAddresses))
    return blockInternalTransactionList.keysetPage(rows, (i) => presentInternalTransaction(i, named),
      (last) => ({ transaction_index: last.transaction_index, index: last.trace_index, items_count: PAGE_SIZE }), q)
  })

  app.get('/main-page/blocks', {
    schema: { tags: ['main-page'], summary: 'The 4 newest blocks', querystring: query(), response: { 200: { type: 'array', items: block } } }
  }, async () => {
    const newest = (await app.queries.listBlocks({ before: undefined, limit: 4 })).slice(0, 4)
    const named = await names.read(newest.map(blockMiner))
    return newest.map((b) => presentBlock(b, 'list', named))
  })
}
