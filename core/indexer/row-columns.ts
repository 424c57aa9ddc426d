// The columns of the indexer's tables, each with how its value travels
// (copy-rows.ts): the store writes rows by them, and a reader of the
// committed rows (commit-feed.ts) selects them back into the same shapes.
import type { BlockRow, CoinBalanceRow, InternalTransactionRow, LogRow, TokenRow, TokenTransferRow, TransactionRow } from './types.ts'
import type { Columns } from './copy-rows.ts'

export const BLOCK_COLUMNS: Columns<BlockRow> = [
  ['number', 'bigint'], ['hash', 'bytea'], ['parent_hash', 'bytea'], ['timestamp', 'timestamptz'], ['miner', 'bytea'],
  ['signer', 'bytea'], ['gas_limit', 'bigint'], ['gas_used', 'bigint'], ['base_fee_per_gas', 'numeric'], ['size', 'integer'],
  ['nonce', 'bytea'], ['difficulty', 'numeric'], ['total_difficulty', 'numeric'], ['extra_data', 'bytea'],
  ['transaction_count', 'integer'], ['internal_transaction_count', 'integer']
]
export const TRANSACTION_COLUMNS: Columns<TransactionRow> = [
  ['hash', 'bytea'], ['block_number', 'bigint'], ['transaction_index', 'integer'], ['from', 'bytea'], ['to', 'bytea'],
  ['value', 'numeric'], ['gas', 'bigint'], ['gas_price', 'numeric'], ['max_fee_per_gas', 'numeric'],
  ['max_priority_fee_per_gas', 'numeric'], ['type', 'smallint'], ['nonce', 'bigint'], ['input', 'bytea'], ['status', 'smallint'],
  ['gas_used', 'bigint'], ['cumulative_gas_used', 'bigint'], ['effective_gas_price', 'numeric'], ['created_contract', 'bytea'],
  ['error', 'text'], ['revert_reason', 'bytea'], ['has_token_transfers', 'boolean']
]
export const LOG_COLUMNS: Columns<LogRow> = [
  ['block_number', 'bigint'], ['log_index', 'integer'], ['transaction_hash', 'bytea'], ['transaction_index', 'integer'],
  ['address', 'bytea'], ['topic0', 'bytea'], ['topic1', 'bytea'], ['topic2', 'bytea'], ['topic3', 'bytea'], ['data', 'bytea']
]
export const INTERNAL_TRANSACTION_COLUMNS: Columns<InternalTransactionRow> = [
  ['block_number', 'bigint'], ['transaction_index', 'integer'], ['trace_index', 'integer'], ['transaction_hash', 'bytea'],
  ['type', 'text'], ['from', 'bytea'], ['to', 'bytea'], ['value', 'numeric'], ['gas', 'bigint'], ['gas_used', 'bigint'],
  ['input', 'bytea'], ['output', 'bytea'], ['error', 'text'], ['trace_address', 'integer[]'], ['created_contract', 'bytea']
]

export const TOKEN_TRANSFER_COLUMNS: Columns<TokenTransferRow> = [
  ['block_number', 'bigint'], ['log_index', 'integer'], ['batch_index', 'integer'], ['transaction_hash', 'bytea'],
  ['transaction_index', 'integer'], ['token_address', 'bytea'], ['token_type', 'text'], ['from', 'bytea'], ['to', 'bytea'],
  ['amount', 'numeric'], ['token_id', 'numeric']
]
export const COIN_BALANCE_COLUMNS: Columns<CoinBalanceRow> = [['address', 'bytea'], ['block_number', 'bigint'], ['value', 'numeric']]
export const TOKEN_COLUMNS: Columns<TokenRow> = [
  ['address', 'bytea'], ['type', 'text'], ['name', 'text'], ['symbol', 'text'], ['decimals', 'smallint'], ['total_supply', 'numeric'],
  ['first_block', 'bigint'], ['updated_block', 'bigint']
]
