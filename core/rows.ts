// The rows of the chain data as the store writes them and the queries read
// them: the indexer's decode stage makes them, core/queries and the APIs hand
// them out. Here rather than in core/indexer so that core/queries does not
// import the indexer (the folder-level import test, test/core/import-cycles).
// Hashes, addresses and byte strings stay 0x-hex in rows and become bytea in
// PostgreSQL; wei and gas are decimal strings, never JavaScript numbers.

export type Hex = `0x${string}`

/** Token mints come from it and burns go to it. */
export const ZERO_ADDRESS: Hex = `0x${'00'.repeat(20)}`

export type BlockRow = {
  number: number
  hash: Hex
  parent_hash: Hex
  timestamp: number
  miner: Hex
  signer: Hex | null
  gas_limit: string
  gas_used: string
  base_fee_per_gas: string | null
  size: number
  nonce: Hex
  difficulty: string
  total_difficulty: string
  extra_data: Hex
  transaction_count: number
  internal_transaction_count: number
}

export type TransactionRow = {
  hash: Hex
  block_number: number
  transaction_index: number
  from: Hex
  to: Hex | null
  value: string
  gas: string
  gas_price: string | null
  max_fee_per_gas: string | null
  max_priority_fee_per_gas: string | null
  type: number
  nonce: string
  input: Hex
  status: number
  gas_used: string
  cumulative_gas_used: string
  effective_gas_price: string
  created_contract: Hex | null
  error: string | null
  revert_reason: Hex | null
  /** Some log of it decoded as a token transfer (decode.ts). */
  has_token_transfers: boolean
}

export type LogRow = {
  block_number: number
  log_index: number
  transaction_hash: Hex
  transaction_index: number
  address: Hex
  topic0: Hex | null
  topic1: Hex | null
  topic2: Hex | null
  topic3: Hex | null
  data: Hex
}

export type InternalTransactionRow = {
  block_number: number
  transaction_index: number
  /** Depth-first position of the frame in its transaction; 0 is the top-level call. */
  trace_index: number
  transaction_hash: Hex
  type: string
  from: Hex
  to: Hex | null
  value: string
  gas: string
  gas_used: string
  input: Hex
  output: Hex | null
  error: string | null
  trace_address: number[]
  created_contract: Hex | null
}

/**
 * Token standards as Blockscout names them. The indexer recognises the first
 * three (decode.ts); the others are named so that a client's filter for them
 * is accepted, and finds nothing.
 */
export const TOKEN_TYPES = ['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404', 'ERC-7984'] as const

export type TokenType = typeof TOKEN_TYPES[number]

export type TokenTransferRow = {
  block_number: number
  log_index: number
  /** Position inside an ERC-1155 TransferBatch; 0 otherwise. */
  batch_index: number
  transaction_hash: Hex
  transaction_index: number
  token_address: Hex
  token_type: TokenType
  from: Hex
  to: Hex
  amount: string
  token_id: string | null
}

/** Read from the token contract with eth_call; fields a contract does not answer stay null. */
export type TokenRow = {
  address: Hex
  type: TokenType
  name: string | null
  symbol: string | null
  decimals: number | null
  total_supply: string | null
  first_block: number
  updated_block: number
}

/**
 * An address's balance and counters as the addresses table keeps them (the
 * store updates them with each block), without its code: a contract's code,
 * up to 24 KiB, is read only when asked for.
 */
export type AddressRow = {
  hash: Hex
  coin_balance: string
  balance_block: number | null
  nonce: number | null
  gas_used: string
  transaction_count: string
  token_transfer_count: string
}

export type CoinBalanceRow = { address: Hex, block_number: number, value: string }

/** Runtime code of a contract created in the block, with its creation transaction. */
export type ContractCodeRow = { address: Hex, code: Hex, creation_transaction: Hex, creator: Hex, block_number: number }
