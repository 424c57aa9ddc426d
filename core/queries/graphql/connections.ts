// Paged children for GraphQL connections, for many parents in one statement:
// each parent's page is read by a lateral subquery from the index that
// matches the connection's order (core/queries/sql/keyset.ts), so a page of 50
// transactions with their internal transactions costs two statements.
import { hexColumn } from '../sql/columns.ts'
import type { AddressRow, InternalTransactionRow, LogRow, TokenTransferRow } from '../../rows.ts'
import { groupByParent, keysetClause, mergedSidesSql, toPageRows, type KeysetClause, type KeysetPage, type KeyValue, type PageRows } from '../sql/keyset.ts'
import {
  ALL_TRANSACTION_COLUMN_GROUPS, addressColumns, HEX_KEYS, INTERNAL_TRANSACTION_COLUMNS, TOKEN_TRANSFER_COLUMNS, transactionColumns,
  type GraphqlTransaction, type TransactionColumnGroup
} from './records.ts'
import type { QueryDb } from '../sql/query-db.ts'

type Keyset = KeysetClause
type Parented<T> = T & { parent_key: string }

export const ADDRESS_TRANSACTION_KEY = ['block_number', 'transaction_index']
export const TOKEN_TRANSFER_KEY = ['block_number', 'log_index', 'batch_index']
export const INTERNAL_TRANSACTION_KEY = ['trace_index']
export const LOG_KEY = ['log_index']

async function pagePerParent<T> (db: QueryDb, parents: readonly string[], page: KeysetPage, keyColumns: string[],
  inner: (k: Keyset) => { sql: string, bindings: KeyValue[] }): Promise<Array<PageRows<Parented<T>>>> {
  const keys = parents.map((p) => p.toLowerCase())
  const k = keysetClause(keyColumns, page)
  const { sql, bindings } = inner(k)
  const rows = await db.prepared.raw(`select p0.key as parent_key, x.* from ${HEX_KEYS} cross join lateral (${sql}) x
    order by p0.ord, ${k.orderBy}`, [keys, ...bindings])
  return groupByParent(keys, rows as Array<Parented<T>>, page)
}

/** Each side (columns of `table`) read from its own index in key order, then merged without duplicates. */
function mergedSides (table: string, columns: string, sides: string[], key: string[], k: Keyset): { sql: string, bindings: KeyValue[] } {
  const wheres = sides.map((column) => `${column} = pb.bytes${k.where}`)
  return {
    sql: mergedSidesSql({ table, columns, wheres, keys: key, orderBy: k.orderBy, sideLimit: k.limit, tail: `limit ${k.limit}` }),
    bindings: sides.flatMap(() => k.bindings)
  }
}

/** One address's page (the address is `pb.bytes`): the `core` columns and those of `groups` only. */
function addressTransactionsPage (k: Keyset, groups: readonly TransactionColumnGroup[]): { sql: string, bindings: KeyValue[] } {
  // Whole rows from each side: the side's index scan reads the heap row anyway, and
  // picking hashes to look up again cost a primary-key descent per transaction.
  const picked = mergedSides('transactions', '*', ['"from"', '"to"', 'created_contract'], ADDRESS_TRANSACTION_KEY, k)
  const block = groups.includes('block') ? ' join blocks b on b.number = t.block_number' : ''
  return { sql: `select ${transactionColumns(groups)} from (${picked.sql}) t${block}`, bindings: picked.bindings }
}

/** Where the address is the sender, the recipient or the created contract. */
export async function listAddressTransactions (db: QueryDb, { addresses, page, groups = ALL_TRANSACTION_COLUMN_GROUPS }: { addresses: readonly string[], page: KeysetPage, groups?: readonly TransactionColumnGroup[] }): Promise<Array<PageRows<GraphqlTransaction>>> {
  return await pagePerParent<GraphqlTransaction>(db, addresses, page, ADDRESS_TRANSACTION_KEY, (k) => addressTransactionsPage(k, groups))
}

const ADDRESS_PREFIX = 'address_'
/** True on exactly one row of the join: the first in the order the rows are produced. */
const ADDRESS_ROW = 'row_number() over () = 1'

/**
 * An address and a page of its transactions in one statement: what
 * `address(hash) { transactions { ... } }` asks for, without a second round
 * trip to the database. Undefined for an unknown address.
 */
export async function findAddressWithTransactions (db: QueryDb, { address, page, groups }: { address: string, page: KeysetPage, groups: readonly TransactionColumnGroup[] }): Promise<{ address: AddressRow, transactions: PageRows<GraphqlTransaction> } | undefined> {
  const k = keysetClause(ADDRESS_TRANSACTION_KEY, page)
  const inner = addressTransactionsPage(k, groups)
  // The address's columns, under names no transaction column has, are filled
  // on one row only: on every row they were a third of the fields the gateway
  // parsed for a page (a null costs the parser nothing).
  const rows = await db.prepared.raw(`select ${addressColumns(ADDRESS_PREFIX, ADDRESS_ROW)}, x.*
    from ${HEX_KEYS} join addresses a on a.hash = pb.bytes left join lateral (${inner.sql}) x on true
    order by ${k.orderBy}`, [[address.toLowerCase()], ...inner.bindings]) as Array<Record<string, unknown>>
  if (rows.length === 0) return undefined
  const carrier = rows.find((r) => r[`${ADDRESS_PREFIX}hash`] !== null)!
  const found = Object.fromEntries(Object.keys(carrier).filter((c) => c.startsWith(ADDRESS_PREFIX)).map((c) => [c.slice(ADDRESS_PREFIX.length), carrier[c]]))
  const first = rows[0]!
  // No transaction: the one row is the address's, with nulls from the empty join.
  const transactions = first.hash === null ? [] : rows as unknown as GraphqlTransaction[]
  return { address: found as AddressRow, transactions: toPageRows(transactions, page) }
}

export async function listAddressTokenTransfers (db: QueryDb, { addresses, page }: { addresses: readonly string[], page: KeysetPage }): Promise<Array<PageRows<TokenTransferRow>>> {
  return await pagePerParent<TokenTransferRow>(db, addresses, page, TOKEN_TRANSFER_KEY, (k) => {
    const merged = mergedSides('token_transfers', TOKEN_TRANSFER_COLUMNS, ['"from"', '"to"'], TOKEN_TRANSFER_KEY, k)
    // The sides select presented columns: read them back by their output names.
    return { sql: `select * from (${merged.sql}) m`, bindings: merged.bindings }
  })
}

export async function listTokenTransfers (db: QueryDb, { token, page }: { token: string, page: KeysetPage }): Promise<PageRows<TokenTransferRow>> {
  const [pageRows] = await pagePerParent<TokenTransferRow>(db, [token], page, TOKEN_TRANSFER_KEY, (k) => ({
    sql: `select ${TOKEN_TRANSFER_COLUMNS} from token_transfers where token_address = pb.bytes${k.where} order by ${k.orderBy} limit ${k.limit}`,
    bindings: k.bindings
  }))
  return pageRows!
}

/** The calls below each transaction's own (trace index 0 is the transaction itself). */
export async function listInternalTransactions (db: QueryDb, { transactions, page }: { transactions: readonly string[], page: KeysetPage }): Promise<Array<PageRows<InternalTransactionRow>>> {
  return await pagePerParent<InternalTransactionRow>(db, transactions, page, INTERNAL_TRANSACTION_KEY, (k) => ({
    sql: `select ${INTERNAL_TRANSACTION_COLUMNS}
      from internal_transactions where transaction_hash = pb.bytes and trace_index > 0${k.where} order by ${k.orderBy} limit ${k.limit}`,
    bindings: k.bindings
  }))
}

export async function listTransactionLogs (db: QueryDb, { transactions, page }: { transactions: readonly string[], page: KeysetPage }): Promise<Array<PageRows<LogRow>>> {
  return await pagePerParent<LogRow>(db, transactions, page, LOG_KEY, (k) => ({
    sql: `select block_number::int as block_number, log_index, ${hexColumn('transaction_hash')} as transaction_hash, transaction_index,
        ${hexColumn('address')} as address, ${hexColumn('topic0')} as topic0, ${hexColumn('topic1')} as topic1,
        ${hexColumn('topic2')} as topic2, ${hexColumn('topic3')} as topic3, ${hexColumn('data')} as data
      from logs where transaction_hash = pb.bytes${k.where} order by ${k.orderBy} limit ${k.limit}`,
    bindings: k.bindings
  }))
}
