// The indexer's data at each stage. Rpc* are what Geth answers (checked at
// the fetch boundary); *Row are what the store writes (core/rows.ts, shared
// with core/queries; re-exported here for the indexer's stages).
import type { BlockRow, CoinBalanceRow, ContractCodeRow, Hex, InternalTransactionRow, LogRow, TokenRow, TokenTransferRow, TransactionRow } from '../rows.ts'

export type { BlockRow, CoinBalanceRow, ContractCodeRow, Hex, InternalTransactionRow, LogRow, TokenRow, TokenTransferRow, TokenType, TransactionRow } from '../rows.ts'
export { ZERO_ADDRESS } from '../rows.ts'

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

/** What the indexer publishes of a committed block (its block event, events.ts): a reader reads this much back (commit-feed.ts). */
export type CommittedBlock = Pick<BlockRows, 'block' | 'transactions' | 'tokenTransfers'>

/** What a block adds beyond the node's block bundle: read from state at that block. */
export type BlockState = {
  coinBalances: CoinBalanceRow[]
  /** Addresses the block shows whose coin balance it left as it was: their rows repeat the last one (store.ts). */
  unchangedBalances?: Hex[]
  contracts: ContractCodeRow[]
}
