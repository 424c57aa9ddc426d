// A block's own lists: its transactions in index order, filtered by
// Blockscout's transaction types, read from the (block_number,
// transaction_index) unique index.
import { PAGE_SIZE } from '../sql/page-size.ts'
import { TRANSACTION_JSON_COLUMNS, TRANSACTION_JSON_JOINS, type TransactionJsonRow } from '../transactions/rest-transaction-json.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type BlockKey = { number: number } | { hash: Buffer }

/** The number of an indexed block, or undefined. */
export async function findBlockNumber (db: QueryDb, key: BlockKey): Promise<number | undefined> {
  const row = await db.knex('blocks').where('number' in key ? { number: key.number } : { hash: key.hash }).first('number')
  return row === undefined ? undefined : Number(row.number)
}

export type TransactionType = 'coin_transfer' | 'contract_call' | 'contract_creation' | 'token_transfer' | 'token_creation'

// The same rules as transaction_types in rest-transaction-json.ts, as predicates over `t` alone.
const HAS_TOKEN_TRANSFERS = 't.has_token_transfers'
const CREATES_TOKEN = 'exists (select 1 from tokens k where k.address = t.created_contract)'
const CALLS_CONTRACT = `(t."to" is not null and octet_length(t.input) > 0
  and exists (select 1 from addresses a where a.hash = t."to" and a.contract_code is not null))`
const TYPE_PREDICATES: Record<TransactionType, string> = {
  token_transfer: HAS_TOKEN_TRANSFERS,
  token_creation: `(t."to" is null and ${CREATES_TOKEN})`,
  contract_creation: `(t."to" is null and not ${CREATES_TOKEN})`,
  contract_call: CALLS_CONTRACT,
  coin_transfer: `(t.value > 0 or (t."to" is not null and not ${HAS_TOKEN_TRANSFERS} and not ${CALLS_CONTRACT}))`
}

/** The block's transactions after `afterIndex`, in index order: one more than a page. */
export async function listBlockTransactions (db: QueryDb, { blockNumber, type, afterIndex }: { blockNumber: number, type?: TransactionType, afterIndex: number }): Promise<TransactionJsonRow[]> {
  const filter = type === undefined ? '' : `and ${TYPE_PREDICATES[type]}`
  const { rows } = await db.knex.raw(`select ${TRANSACTION_JSON_COLUMNS} from (
      select * from transactions t where t.block_number = ? and t.transaction_index > ? ${filter} order by t.transaction_index limit ?
    ) t ${TRANSACTION_JSON_JOINS} order by t.transaction_index`, [blockNumber, afterIndex, PAGE_SIZE + 1])
  return rows
}
