// The indexer's data at each stage. Rpc* are what Geth answers (checked at
// the fetch boundary); *Row are what the store writes. Hashes, addresses and
// byte strings stay 0x-hex in rows and become bytea in PostgreSQL.

export type Hex = `0x${string}`

/** Token mints come from it and burns go to it. */
export const ZERO_ADDRESS: Hex = `0x${'00'.repeat(20)}`

export type RpcTransaction = {
  hash: Hex
  blockNumber: Hex
  transactionIndex: Hex
  from: Hex
  to: Hex | null
  value: Hex
  gas: Hex
  gasPrice?: Hex
  maxFeePerGas?: Hex
  maxPriorityFeePerGas?: Hex
  type: Hex
  nonce: Hex
  input: Hex
}

export type RpcBlock = {
  number: Hex
  hash: Hex
  parentHash: Hex
  sha3Uncles: Hex
  miner: Hex
  stateRoot: Hex
  transactionsRoot: Hex
  receiptsRoot: Hex
  logsBloom: Hex
  difficulty: Hex
  totalDifficulty: Hex
  gasLimit: Hex
  gasUsed: Hex
  timestamp: Hex
  extraData: Hex
  mixHash: Hex
  nonce: Hex
  baseFeePerGas?: Hex
  size: Hex
  transactions: RpcTransaction[]
}

export type RpcLog = {
  address: Hex
  topics: Hex[]
  data: Hex
  logIndex: Hex
  transactionHash: Hex
  transactionIndex: Hex
  blockNumber: Hex
}

export type RpcReceipt = {
  blockHash: Hex
  transactionHash: Hex
  transactionIndex: Hex
  status: Hex
  gasUsed: Hex
  cumulativeGasUsed: Hex
  effectiveGasPrice: Hex
  contractAddress: Hex | null
  logs: RpcLog[]
}

/** One frame of Geth's callTracer output. */
export type RpcCallFrame = {
  type: string
  from: Hex
  to?: Hex
  value?: Hex
  gas: Hex
  gasUsed: Hex
  input: Hex
  output?: Hex
  error?: string
  revertReason?: string
  calls?: RpcCallFrame[]
}

export type RpcTraceResult = { txHash?: Hex, result?: RpcCallFrame, error?: string }

/** Everything the node says about one block. */
export type BlockBundle = {
  block: RpcBlock
  receipts: RpcReceipt[]
  traces: RpcTraceResult[]
  /** From clique_getSigner when the node has the clique API. */
  signer?: Hex
}

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

export type BlockRows = {
  block: BlockRow
  transactions: TransactionRow[]
  logs: LogRow[]
  internalTransactions: InternalTransactionRow[]
  tokenTransfers: TokenTransferRow[]
  /** Filled by the fetch stage after decoding (balances and code at this block). */
  state: BlockState
  /** Tokens seen in this block, with what their contracts answered. */
  tokens: TokenRow[]
}

/** What the indexer announces of a committed block (its 'blocks' event): a reader reads this much back (commit-feed.ts). */
export type CommittedBlock = Pick<BlockRows, 'block' | 'transactions' | 'tokenTransfers'>

export type TokenType = 'ERC-20' | 'ERC-721' | 'ERC-1155'

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

export type CoinBalanceRow = { address: Hex, block_number: number, value: string }

/** Runtime code of a contract created in the block, with its creation transaction. */
export type ContractCodeRow = { address: Hex, code: Hex, creation_transaction: Hex, creator: Hex, block_number: number }

/** What a block adds beyond the node's block bundle: read from state at that block. */
export type BlockState = {
  coinBalances: CoinBalanceRow[]
  /** Addresses the block shows whose coin balance it left as it was: their rows repeat the last one (store.ts). */
  unchangedBalances?: Hex[]
  contracts: ContractCodeRow[]
}
