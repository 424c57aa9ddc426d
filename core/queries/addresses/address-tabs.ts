// Counts behind an address's explorer tabs, capped as Blockscout caps them:
// each count stops at TAB_COUNT_LIMIT rows (51 reads as "50+"), and each side
// of an either-side match is its own limited index scan, so every count is a
// few index probes however busy the address is.
import type { QueryDb } from '../sql/query-db.ts'

export const TAB_COUNT_LIMIT = 51

export type TabCounts = {
  validations_count: number
  transactions_count: number
  token_transfers_count: number
  token_balances_count: number
  logs_count: number
  withdrawals_count: number
  internal_transactions_count: number
}

const limited = (sql: string) => `(${sql} limit ${TAB_COUNT_LIMIT})`
/** Rows matching any of the sides, each side read up to the cap, duplicates (a self-transfer) counted once. */
const capped = (...sides: string[]) => `(select count(*) from (select distinct * from (${sides.map(limited).join(' union all ')}) s limit ${TAB_COUNT_LIMIT}) x)`

// Blockscout leaves out the frame that repeats the transaction's own call (index 0 of a call); a creation frame counts.
const NOT_TOP_CALL = '(trace_index > 0 or type in (\'create\', \'create2\'))'
const FRAME = 'select block_number, transaction_index, trace_index from internal_transactions where'
// Blockscout stores an ERC-1155 batch as one transfer: count logs, not ids.
const TRANSFER = 'select block_number, log_index from token_transfers where batch_index = 0 and'

const COUNTS_SQL = `select
  ${capped('select number from blocks where signer = ?')} as validations_count,
  ${capped('select hash from transactions where "from" = ?', 'select hash from transactions where "to" = ?',
    'select hash from transactions where created_contract = ?')} as transactions_count,
  ${capped(`${TRANSFER} "from" = ?`, `${TRANSFER} "to" = ?`)} as token_transfers_count,
  ${capped('select token_address, token_id from token_holdings where holder = ? and value > 0')} as token_balances_count,
  ${capped('select block_number, log_index from logs where address = ?')} as logs_count,
  ${capped(`${FRAME} "from" = ? and ${NOT_TOP_CALL}`, `${FRAME} "to" = ? and ${NOT_TOP_CALL}`,
    `${FRAME} created_contract = ? and ${NOT_TOP_CALL}`)} as internal_transactions_count`

const PLACEHOLDERS = COUNTS_SQL.split('?').length - 1

export async function countAddressTabs (db: QueryDb, hash: Buffer): Promise<TabCounts> {
  const { rows } = await db.knex.raw(COUNTS_SQL, Array.from({ length: PLACEHOLDERS }, () => hash))
  const row = rows[0] as Record<string, string>
  return {
    validations_count: Number(row.validations_count),
    transactions_count: Number(row.transactions_count),
    token_transfers_count: Number(row.token_transfers_count),
    token_balances_count: Number(row.token_balances_count),
    logs_count: Number(row.logs_count),
    // A clique chain has no beacon withdrawals.
    withdrawals_count: 0,
    internal_transactions_count: Number(row.internal_transactions_count)
  }
}

/** Whether the index has seen the address: a row in addresses, or a clique signer (the signer is not the block's miner). */
export async function isKnownAddress (db: QueryDb, hash: Buffer): Promise<boolean> {
  const { rows } = await db.knex.raw(`select exists (select 1 from addresses where hash = ?)
    or exists (select 1 from blocks where signer = ?) as known`, [hash, hash])
  return rows[0].known
}
