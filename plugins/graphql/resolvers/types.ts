// Field resolvers: Blockscout's field names over the indexer's row shapes.
// Edges to other rows are loaders (loaders.ts), not resolvers here.
import type { GraphqlToken, GraphqlTransaction } from '../../../core/queries/graphql/records.ts'
import type { BlockColumnsRow } from '../../../core/queries/sql/columns.ts'
import type { AddressRow } from '../../../core/rows.ts'
import type { InternalTransactionRow, LogRow, TokenTransferRow } from '../../../core/indexer/types.ts'
import { toGlobalId } from './node.ts'

type Fields<Row> = Record<string, keyof Row | ((row: Row) => unknown)>

/** Resolvers reading a column, or computing from the row. */
function fields<Row> (map: Fields<Row>): Record<string, (row: Row) => unknown> {
  return Object.fromEntries(Object.entries(map).map(([name, source]) =>
    [name, typeof source === 'function' ? source : (row: Row) => row[source as keyof Row]]))
}

const CALL_TYPES = new Set(['call', 'callcode', 'delegatecall', 'staticcall'])
const isCreate = (r: InternalTransactionRow): boolean => r.type === 'create' || r.type === 'create2'
const toInt = (value: string): number => Number(value)

export const Block = fields<BlockColumnsRow>({
  consensus: () => true,
  gasLimit: 'gas_limit',
  gasUsed: 'gas_used',
  // Clique blocks name the zero address as miner: the signer made the block.
  minerHash: (b) => b.signer ?? b.miner,
  parentHash: 'parent_hash',
  totalDifficulty: 'total_difficulty',
  baseFeePerGas: 'base_fee_per_gas',
  isEmpty: (b) => b.transaction_count === 0
})

export const Transaction = fields<GraphqlTransaction>({
  id: (t) => toGlobalId('Transaction', t.hash),
  cumulativeGasUsed: 'cumulative_gas_used',
  // What the node reports as gasPrice for a mined transaction: the price paid.
  gasPrice: 'effective_gas_price',
  gasUsed: 'gas_used',
  index: 'transaction_index',
  status: (t) => t.status === 1 ? 'OK' : 'ERROR',
  blockHash: 'block_hash',
  blockNumber: 'block_number',
  fromAddressHash: 'from',
  toAddressHash: 'to',
  createdContractAddressHash: 'created_contract',
  revertReason: 'revert_reason',
  maxPriorityFeePerGas: 'max_priority_fee_per_gas',
  maxFeePerGas: 'max_fee_per_gas',
  earliestProcessingStart: () => null
})

export const InternalTransaction = fields<InternalTransactionRow>({
  id: (r) => toGlobalId('InternalTransaction', JSON.stringify({ index: r.trace_index, transaction_hash: r.transaction_hash })),
  callType: (r) => CALL_TYPES.has(r.type) ? r.type.toUpperCase() : null,
  createdContractCode: (r) => isCreate(r) ? r.output : null,
  gasUsed: 'gas_used',
  index: 'trace_index',
  init: (r) => isCreate(r) ? r.input : null,
  input: (r) => isCreate(r) ? null : r.input,
  output: (r) => isCreate(r) ? null : r.output,
  traceAddress: (r) => JSON.stringify(r.trace_address),
  type: (r) => isCreate(r) ? 'CREATE' : r.type === 'selfdestruct' ? 'SELFDESTRUCT' : 'CALL',
  blockNumber: 'block_number',
  transactionIndex: 'transaction_index',
  createdContractAddressHash: 'created_contract',
  fromAddressHash: 'from',
  toAddressHash: 'to',
  transactionHash: 'transaction_hash'
})

export const TokenTransfer = fields<TokenTransferRow>({
  id: (r) => toGlobalId('TokenTransfer', JSON.stringify(r.batch_index === 0
    ? { log_index: r.log_index, transaction_hash: r.transaction_hash }
    : { batch_index: r.batch_index, log_index: r.log_index, transaction_hash: r.transaction_hash })),
  amounts: (r) => r.token_type === 'ERC-1155' ? [r.amount] : null,
  blockNumber: 'block_number',
  logIndex: 'log_index',
  tokenIds: (r) => r.token_id === null ? null : [r.token_id],
  fromAddressHash: 'from',
  toAddressHash: 'to',
  tokenContractAddressHash: 'token_address',
  transactionHash: 'transaction_hash'
})

export const Token = fields<GraphqlToken>({
  totalSupply: 'total_supply',
  decimals: (k) => k.decimals === null ? null : String(k.decimals),
  holderCount: 'holder_count',
  circulatingMarketCap: () => null,
  iconUrl: () => null,
  volume24h: () => null,
  contractAddressHash: 'address'
})

export const Address = fields<AddressRow>({
  fetchedCoinBalance: 'coin_balance',
  fetchedCoinBalanceBlockNumber: 'balance_block',
  gasUsed: (a) => toInt(a.gas_used),
  transactionsCount: (a) => toInt(a.transaction_count),
  tokenTransfersCount: (a) => toInt(a.token_transfer_count),
  // No contract verification yet: nothing to answer but null.
  smartContract: () => null
})

export const Log = fields<LogRow>({
  index: 'log_index',
  addressHash: 'address',
  firstTopic: 'topic0',
  secondTopic: 'topic1',
  thirdTopic: 'topic2',
  fourthTopic: 'topic3',
  blockNumber: 'block_number',
  transactionHash: 'transaction_hash'
})
