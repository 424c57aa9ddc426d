// Address reads for the explorer APIs. The addresses row holds the running
// counters; the has_* flags are existence checks on indexed columns.
import type { Hex } from '../../rows.ts'
import { hexColumn } from '../sql/columns.ts'
import { PAGE_SIZE } from '../sql/page-size.ts'
import { TRANSACTION_JSON_COLUMNS, TRANSACTION_JSON_JOINS, type TransactionJsonRow } from '../transactions/rest-transaction-json.ts'
import type { TransactionCursor } from '../transactions/transactions.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type AddressRecord = {
  coin_balance: string
  balance_block: number | null
  contract_code: Hex | null
  creation_transaction: Hex | null
  creator: Hex | null
  creation_status: number | null
  transaction_count: string
  token_transfer_count: string
  gas_used: string
  has_validated_blocks: boolean
  has_logs: boolean
  has_tokens: boolean
  token: { type: string, name: string | null, symbol: string | null, decimals: number | null, total_supply: string | null, holder_count: number } | null
}

/**
 * The probes take the address as a value, not from the outer row: a clique
 * chain's blocks all have one signer and a token's logs one address, so for a
 * correlated probe PostgreSQL expects every row to match and scans the table
 * (100,000 blocks and as many logs for any other address); with the value it
 * reads the column's statistics and probes the index.
 */
export async function findAddress (db: QueryDb, hash: Buffer): Promise<AddressRecord | undefined> {
  const { rows } = await db.knex.raw(`
    select a.coin_balance::text, a.balance_block::int as balance_block, ${hexColumn('a.contract_code')} as contract_code,
      ${hexColumn('a.creation_transaction')} as creation_transaction, ${hexColumn('a.creator')} as creator,
      (select status from transactions t where t.hash = a.creation_transaction) as creation_status,
      a.transaction_count::text, a.token_transfer_count::text, a.gas_used::text,
      exists (select 1 from blocks b where b.signer = :hash) as has_validated_blocks,
      exists (select 1 from logs l where l.address = :hash) as has_logs,
      exists (select 1 from token_balances tb where tb.holder = :hash and tb.value > 0) as has_tokens,
      (select row_to_json(k) from (select type, name, symbol, decimals, total_supply::text, holder_count from tokens where address = a.hash) k) as token
    from addresses a where a.hash = :hash`, { hash })
  return rows[0]
}

export async function countValidatedBlocks (db: QueryDb, hash: Buffer): Promise<string> {
  const row = await db.knex('blocks').where('signer', hash).count({ n: '*' }).first()
  return String(row?.n ?? 0)
}

export type AddressTransactionFilter = 'from' | 'to' | undefined

/**
 * The address's transactions, newest first, after `cursor`: each side (from,
 * to, created) is read from its own index in key order and the three merged,
 * so a deep page costs what the first does.
 */
export async function listAddressTransactions (db: QueryDb, { hash, filter, cursor }: { hash: Buffer, filter: AddressTransactionFilter, cursor?: TransactionCursor }): Promise<TransactionJsonRow[]> {
  const sides = filter === 'from' ? ['"from"'] : filter === 'to' ? ['"to"', 'created_contract'] : ['"from"', '"to"', 'created_contract']
  // $1 is the address, $2 and $3 the cursor: every side shares them.
  return await db.prepared.rows<TransactionJsonRow>(addressPage(sides, cursor !== undefined),
    cursor === undefined ? [hash] : [hash, cursor.blockNumber, cursor.index])
}

// The address is compared through a sub-select, which PostgreSQL cannot see
// into when planning: a busy address then gets the same plan as any other
// (its index, in key order) and the prepared statement keeps one generic
// plan instead of being planned again on every request.
function addressPage (sides: string[], after: boolean): string {
  const limit = PAGE_SIZE + 1
  // Whole rows from each side: its index scan reads the heap row anyway, and
  // picking hashes to look up again cost a primary-key descent per transaction.
  const side = (column: string) => `(select * from transactions
    where ${column} = (select $1::bytea) ${after ? 'and (block_number, transaction_index) < ($2, $3)' : ''} order by block_number desc, transaction_index desc limit ${limit})`
  return `select ${TRANSACTION_JSON_COLUMNS} from (
      select distinct on (block_number, transaction_index) * from (${sides.map(side).join(' union all ')}) s
      order by block_number desc, transaction_index desc limit ${limit}
    ) t ${TRANSACTION_JSON_JOINS}
    order by t.block_number desc, t.transaction_index desc`
}
