// Transaction reads for the explorer APIs: keyset pages by (block, index),
// the order of the (block_number, transaction_index) unique index.
import type { Knex } from 'knex'
import { PAGE_SIZE } from './blocks.ts'
import { epochColumn, hexColumn } from './columns.ts'
import { preparedRows } from './prepared.ts'

/** Hashes, addresses and bytes as 0x-hex text; the timestamp in epoch seconds (columns.ts says why). */
export type TransactionRecord = {
  hash: string
  block_number: number
  transaction_index: number
  timestamp: number
  base_fee_per_gas: string | null
  from: string
  to: string | null
  created_contract: string | null
  from_is_contract: boolean
  to_is_contract: boolean
  value: string
  gas: string
  gas_price: string | null
  max_fee_per_gas: string | null
  max_priority_fee_per_gas: string | null
  effective_gas_price: string
  gas_used: string
  type: number
  nonce: string
  input: string
  status: number
  error: string | null
  revert_reason: string | null
  has_token_transfers: boolean
  creates_token: boolean
  has_internal_error: boolean
  indexed_head: number
}

// The per-row flags are existence checks that each read one small index: the
// contract flags the partial index of addresses with code, the internal-error
// flag the partial index of failed inner frames (migration
// 2026_11_21_6_transaction_flag_indexes). A left join to addresses instead
// read the address row itself, twice per transaction. Whether it moved tokens
// is kept on the row (migration 2026_11_21_7_transaction_token_transfer_flag).
export const TRANSACTION_COLUMNS = `
  ${hexColumn('t.hash')} as hash, t.block_number::int as block_number, t.transaction_index,
  ${epochColumn('b.timestamp')} as timestamp, b.base_fee_per_gas::text as base_fee_per_gas,
  ${hexColumn('t."from"')} as "from", ${hexColumn('t."to"')} as "to", ${hexColumn('t.created_contract')} as created_contract,
  exists (select 1 from addresses a where a.hash = t."from" and a.contract_code is not null) as from_is_contract,
  exists (select 1 from addresses a where a.hash = coalesce(t."to", t.created_contract) and a.contract_code is not null) as to_is_contract,
  t.value::text, t.gas::text, t.gas_price::text, t.max_fee_per_gas::text, t.max_priority_fee_per_gas::text, t.effective_gas_price::text,
  t.gas_used::text, t.type, t.nonce::text, ${hexColumn('t.input')} as input, t.status, t.error, ${hexColumn('t.revert_reason')} as revert_reason,
  t.has_token_transfers,
  exists (select 1 from tokens k where k.address = t.created_contract) as creates_token,
  exists (select 1 from internal_transactions i where i.transaction_hash = t.hash and i.error is not null and i.trace_index > 0) as has_internal_error,
  (select max(number) from blocks)::int as indexed_head`

export const TRANSACTION_JOINS = `
  join blocks b on b.number = t.block_number`

export type TransactionCursor = { blockNumber: number, index: number }

// Limits are written into the text, not bound: with a bound limit PostgreSQL's
// generic plan guesses a tenth of the table, never beats a custom plan, and
// every execution is planned again, which is what preparing was to avoid.
const ORDER = 'order by block_number desc, transaction_index desc'
const pageOf = (where: string, limit: number) => `select ${TRANSACTION_COLUMNS} from (
    select * from transactions ${where} ${ORDER} limit ${limit}
  ) t ${TRANSACTION_JOINS} order by t.block_number desc, t.transaction_index desc`
const BY_HASH = `select ${TRANSACTION_COLUMNS} from transactions t ${TRANSACTION_JOINS} where t.hash = $1`

/** Newest first, after `cursor`; one more than asked, to tell whether another page follows. */
export async function listTransactions (db: Knex, cursor: TransactionCursor | undefined, limit = PAGE_SIZE): Promise<TransactionRecord[]> {
  return cursor === undefined
    ? await preparedRows<TransactionRecord>(db, pageOf('', limit + 1), [])
    : await preparedRows<TransactionRecord>(db, pageOf('where (block_number, transaction_index) < ($1, $2)', limit + 1), [cursor.blockNumber, cursor.index])
}

export async function findTransaction (db: Knex, hash: Buffer): Promise<TransactionRecord | undefined> {
  return (await preparedRows<TransactionRecord>(db, BY_HASH, [hash]))[0]
}

export type TokenTransferRecord = {
  transaction_hash: Buffer
  block_number: number
  block_hash: Buffer
  timestamp: Date
  log_index: number
  token_address: Buffer
  token_type: string
  from: Buffer
  to: Buffer
  amount: string
  token_id: string | null
  name: string | null
  symbol: string | null
  decimals: number | null
  total_supply: string | null
  holder_count: number
  /** The first 4 bytes of the transaction's input (its method selector; fewer for a short input): a page of an airdrop's transfers must not read its whole calldata once per row. */
  method_id: Buffer
  from_is_contract: boolean
  to_is_contract: boolean
}

const tokenTransfersOf = (limit: number) => `
  select tt.transaction_hash, tt.block_number, b.hash as block_hash, b.timestamp, tt.log_index, tt.token_address, tt.token_type,
    tt."from", tt."to", tt.amount::text, tt.token_id::text, k.name, k.symbol, k.decimals, k.total_supply::text, k.holder_count, substring(t.input from 1 for 4) as method_id,
    coalesce(fa.contract_code is not null, false) as from_is_contract, coalesce(ta.contract_code is not null, false) as to_is_contract
  from token_transfers tt
    join blocks b on b.number = tt.block_number
    join transactions t on t.hash = tt.transaction_hash
    left join tokens k on k.address = tt.token_address
    left join addresses fa on fa.hash = tt."from"
    left join addresses ta on ta.hash = tt."to"
  where tt.transaction_hash = $1 order by tt.log_index, tt.batch_index limit ${limit}`

/** A transaction's first `limit` token transfers (and one more, to tell whether there are more). */
export async function listTransactionTokenTransfers (db: Knex, hash: Buffer, limit: number): Promise<TokenTransferRecord[]> {
  const rows = await preparedRows<TokenTransferRecord>(db, tokenTransfersOf(limit + 1), [hash])
  return rows.map((r) => ({ ...r, block_number: Number(r.block_number) }))
}
