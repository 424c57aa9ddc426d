// Transaction reads for the explorer APIs: keyset pages by (block, index),
// the order of the (block_number, transaction_index) unique index.
import { PAGE_SIZE } from '../sql/page-size.ts'
import { TRANSACTION_JSON_COLUMNS, TRANSACTION_JSON_JOINS, type TransactionJsonRow } from './rest-transaction-json.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type TransactionCursor = { blockNumber: number, index: number }

// Limits are written into the text, not bound: with a bound limit PostgreSQL's
// generic plan guesses a tenth of the table, never beats a custom plan, and
// every execution is planned again, which is what preparing was to avoid.
const ORDER = 'order by block_number desc, transaction_index desc'
const pageOf = (where: string, limit: number) => `select ${TRANSACTION_JSON_COLUMNS} from (
    select * from transactions ${where} ${ORDER} limit ${limit}
  ) t ${TRANSACTION_JSON_JOINS} order by t.block_number desc, t.transaction_index desc`
const BY_HASH = `select ${TRANSACTION_JSON_COLUMNS} from transactions t ${TRANSACTION_JSON_JOINS} where t.hash = $1`

/** Newest first, after `cursor`; one more than asked, to tell whether another page follows. */
export async function listTransactions (db: QueryDb, { cursor, limit = PAGE_SIZE }: { cursor?: TransactionCursor, limit?: number }): Promise<TransactionJsonRow[]> {
  return cursor === undefined
    ? await db.prepared.rows<TransactionJsonRow>(pageOf('', limit + 1), [])
    : await db.prepared.rows<TransactionJsonRow>(pageOf('where (block_number, transaction_index) < ($1, $2)', limit + 1), [cursor.blockNumber, cursor.index])
}

export async function findTransaction (db: QueryDb, hash: Buffer): Promise<TransactionJsonRow | undefined> {
  return (await db.prepared.rows<TransactionJsonRow>(BY_HASH, [hash]))[0]
}
