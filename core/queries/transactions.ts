// Transaction reads for the explorer APIs: keyset pages by (block, index),
// the order of the (block_number, transaction_index) unique index.
import type { Knex } from 'knex'
import { PAGE_SIZE } from './blocks.ts'
import { preparedRows } from './prepared.ts'
import { TRANSACTION_JSON_COLUMNS, TRANSACTION_JSON_JOINS, type TransactionJsonRow } from './transaction-json.ts'

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
export async function listTransactions (db: Knex, cursor: TransactionCursor | undefined, limit = PAGE_SIZE): Promise<TransactionJsonRow[]> {
  return cursor === undefined
    ? await preparedRows<TransactionJsonRow>(db, pageOf('', limit + 1), [])
    : await preparedRows<TransactionJsonRow>(db, pageOf('where (block_number, transaction_index) < ($1, $2)', limit + 1), [cursor.blockNumber, cursor.index])
}

export async function findTransaction (db: Knex, hash: Buffer): Promise<TransactionJsonRow | undefined> {
  return (await preparedRows<TransactionJsonRow>(db, BY_HASH, [hash]))[0]
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
