// Internal transactions (call frames) for the explorer APIs. As Blockscout,
// lists leave out a transaction's own top-level call; the partial indexes of
// migration 2026_11_21_3 hold exactly the listed rows in list order.
import type { Knex } from 'knex'
import type { InternalTransactionRow } from '../../rows.ts'
import { epochColumn, hexColumn } from '../sql/columns.ts'
import { PAGE_SIZE } from '../sql/page-size.ts'
import type { QueryDb } from '../sql/query-db.ts'

/** The partial indexes' predicate, written as in the migration so the planner matches it. */
/** The frames Blockscout lists: every one but a transaction's own top call. */
export const LISTED = '(trace_index > 0 or type <> \'call\')'

/** A listed frame with its block's time and whether its addresses hold code. */
type ListedColumns = 'block_number' | 'transaction_index' | 'trace_index' | 'transaction_hash' | 'type' | 'from' | 'to' | 'created_contract' | 'value' | 'gas' | 'error'
export type InternalTransactionRecord = Pick<InternalTransactionRow, ListedColumns> & {
  /** Seconds since the epoch. */
  timestamp: number
  from_is_contract: boolean
  to_is_contract: boolean
}

/** (block, transaction index, trace index): the position of a frame in the chain. */
export type InternalTransactionCursor = { blockNumber: number, transactionIndex: number, index: number }

const COLUMNS = `i.block_number::int as block_number, i.transaction_index, i.trace_index, ${hexColumn('i.transaction_hash')} as transaction_hash, i.type,
  ${hexColumn('i."from"')} as "from", ${hexColumn('i."to"')} as "to", ${hexColumn('i.created_contract')} as created_contract,
  i.value::text, i.gas::text, i.error, ${epochColumn('b.timestamp')} as timestamp,
  coalesce(fa.contract_code is not null, false) as from_is_contract, coalesce(ta.contract_code is not null, false) as to_is_contract`

const JOINS = `join blocks b on b.number = i.block_number
  left join addresses fa on fa.hash = i."from"
  left join addresses ta on ta.hash = i."to"`

const DESC = 'order by block_number desc, transaction_index desc, trace_index desc'
const OUTER_ORDER = {
  desc: 'order by i.block_number desc, i.transaction_index desc, i.trace_index desc',
  asc: 'order by i.block_number, i.transaction_index, i.trace_index'
}

/** `inner` picks the page's rows from an index; the joins then run for those rows only. */
async function select (db: QueryDb, inner: string, order: keyof typeof OUTER_ORDER, bindings: Knex.RawBinding[]): Promise<InternalTransactionRecord[]> {
  const { rows } = await db.knex.raw(`select ${COLUMNS} from (${inner}) i ${JOINS} ${OUTER_ORDER[order]}`, bindings)
  return rows
}

const before = (cursor: InternalTransactionCursor | undefined) => cursor === undefined
  ? { sql: '', bindings: [] }
  : { sql: 'and (block_number, transaction_index, trace_index) < (?, ?, ?)', bindings: [cursor.blockNumber, cursor.transactionIndex, cursor.index] }

/** Every listed frame of the chain (or of one transaction), newest first: one more than a page. */
export async function listInternalTransactions (db: QueryDb, { transaction, cursor }: { transaction?: Buffer, cursor?: InternalTransactionCursor }): Promise<InternalTransactionRecord[]> {
  const after = before(cursor)
  const where = transaction === undefined ? '' : 'and transaction_hash = ?'
  const bindings = transaction === undefined ? after.bindings : [transaction, ...after.bindings]
  return await select(db, `select * from internal_transactions where ${LISTED} ${where} ${after.sql} ${DESC} limit ${PAGE_SIZE + 1}`, 'desc', bindings)
}

/** A transaction's listed frames in call order, after trace index `afterIndex`. */
export async function listTransactionInternalTransactions (db: QueryDb, { hash, afterIndex }: { hash: Buffer, afterIndex: number }): Promise<InternalTransactionRecord[]> {
  return await select(db, `select * from internal_transactions where transaction_hash = ? and trace_index > ? and ${LISTED}
    order by trace_index limit ${PAGE_SIZE + 1}`, 'asc', [hash, afterIndex])
}

/** A block's listed frames in execution order, after (transaction index, trace index). */
export async function listBlockInternalTransactions (db: QueryDb, { blockNumber, after }: { blockNumber: number, after?: { transactionIndex: number, index: number } }): Promise<InternalTransactionRecord[]> {
  const where = after === undefined ? '' : 'and (transaction_index, trace_index) > (?, ?)'
  const bindings = after === undefined ? [blockNumber] : [blockNumber, after.transactionIndex, after.index]
  return await select(db, `select * from internal_transactions where block_number = ? ${where} and ${LISTED}
    order by transaction_index, trace_index limit ${PAGE_SIZE + 1}`, 'asc', bindings)
}

export type AddressInternalFilter = 'from' | 'to' | undefined

/**
 * The frames from, to or creating `address`, newest first. Each side is read
 * from its own index in list order and the sides merged (a frame from an
 * address to itself counts once).
 */
export async function listAddressInternalTransactions (db: QueryDb, { address, filter, cursor }: { address: Buffer, filter: AddressInternalFilter, cursor?: InternalTransactionCursor }): Promise<InternalTransactionRecord[]> {
  const after = before(cursor)
  const limit = PAGE_SIZE + 1
  const sides = [
    ...(filter !== 'to' ? [`"from" = ? and ${LISTED}`] : []),
    ...(filter !== 'from' ? [`"to" = ? and ${LISTED}`, 'created_contract = ?'] : [])
  ]
  const inner = sides.map((where) => `(select * from internal_transactions where ${where} ${after.sql} ${DESC} limit ${limit})`).join(' union ')
  return await select(db, `select * from (${inner}) s ${DESC} limit ${limit}`, 'desc', sides.flatMap(() => [address, ...after.bindings]))
}

export type TraceFrameRecord = Pick<InternalTransactionRow, 'trace_index' | 'type' | 'from' | 'to' | 'created_contract' | 'value' | 'gas' | 'error' |
  'gas_used' | 'input' | 'output' | 'trace_address'>

/** Every frame of a transaction (its own call included), depth first. */
export async function listTraceFrames (db: QueryDb, hash: Buffer): Promise<TraceFrameRecord[]> {
  return await db.knex('internal_transactions').where('transaction_hash', hash).orderBy('trace_index')
    .select('trace_index', 'type', db.knex.raw(`${hexColumn('"from"')} as "from"`), db.knex.raw(`${hexColumn('"to"')} as "to"`),
      db.knex.raw(`${hexColumn('created_contract')} as created_contract`), db.knex.raw('value::text as value'), db.knex.raw('gas::text as gas'),
      db.knex.raw('gas_used::text as gas_used'), db.knex.raw(`${hexColumn('input')} as input`), db.knex.raw(`${hexColumn('output')} as output`), 'error', 'trace_address')
}
