// Pure: what the node said about a block becomes the rows the store writes.
import type {
  BlockBundle, BlockRows, Hex, InternalTransactionRow, LogRow, RpcCallFrame, RpcReceipt, TransactionRow
} from './types.ts'
import { recoverCliqueSigner } from './clique-signer.ts'
import { decodeTokenTransfers } from './token-transfers.ts'

/** Up to 13 hex digits a double holds exactly, and Number() parses them far faster than BigInt(). */
const SAFE_HEX_LENGTH = 15
const dec = (hex: Hex | undefined): string => hex === undefined ? '0' : hex.length <= SAFE_HEX_LENGTH ? String(Number(hex)) : BigInt(hex).toString()
const num = (hex: Hex): number => Number(hex)
const lower = <T extends Hex | null | undefined>(hex: T): T => (hex?.toLowerCase() ?? hex) as T

export function decodeBlockBundle ({ block, receipts, traces, signer }: BlockBundle): BlockRows {
  const number = num(block.number)
  const receiptByHash = new Map(receipts.map((r) => [r.transactionHash, r]))
  const logs = receipts.flatMap(decodeLogs)
  const tokenTransfers = decodeTokenTransfers(logs)
  const movesTokens = new Set(tokenTransfers.map((t) => t.transaction_hash))
  const transactions = block.transactions.map((tx): TransactionRow => {
    const receipt = receiptByHash.get(tx.hash)
    if (receipt === undefined) throw new Error(`block ${number}: no receipt for ${tx.hash}`)
    const trace = traces[num(tx.transactionIndex)]?.result
    return {
      hash: tx.hash,
      block_number: number,
      transaction_index: num(tx.transactionIndex),
      from: lower(tx.from),
      to: lower(tx.to ?? null),
      value: dec(tx.value),
      gas: dec(tx.gas),
      gas_price: tx.gasPrice === undefined ? null : dec(tx.gasPrice),
      max_fee_per_gas: tx.maxFeePerGas === undefined ? null : dec(tx.maxFeePerGas),
      max_priority_fee_per_gas: tx.maxPriorityFeePerGas === undefined ? null : dec(tx.maxPriorityFeePerGas),
      type: num(tx.type),
      nonce: dec(tx.nonce),
      input: tx.input,
      status: num(receipt.status),
      gas_used: dec(receipt.gasUsed),
      cumulative_gas_used: dec(receipt.cumulativeGasUsed),
      effective_gas_price: dec(receipt.effectiveGasPrice),
      created_contract: lower(receipt.contractAddress ?? null),
      error: num(receipt.status) === 1 ? null : (trace?.error ?? 'execution reverted'),
      revert_reason: num(receipt.status) === 1 ? null : revertData(trace),
      has_token_transfers: movesTokens.has(tx.hash)
    }
  })
  const internalTransactions = block.transactions.flatMap((tx, i) => {
    const frame = traces[i]?.result
    return frame === undefined ? [] : flattenCallFrames(frame, number, i, tx.hash)
  })
  return {
    block: {
      number,
      hash: block.hash,
      parent_hash: block.parentHash,
      timestamp: num(block.timestamp),
      miner: lower(block.miner),
      signer: signer ?? recoverCliqueSigner(block),
      gas_limit: dec(block.gasLimit),
      gas_used: dec(block.gasUsed),
      base_fee_per_gas: block.baseFeePerGas === undefined ? null : dec(block.baseFeePerGas),
      size: num(block.size),
      nonce: block.nonce,
      difficulty: dec(block.difficulty),
      total_difficulty: dec(block.totalDifficulty),
      extra_data: block.extraData,
      transaction_count: block.transactions.length,
      internal_transaction_count: internalTransactions.length
    },
    transactions,
    logs,
    internalTransactions,
    tokenTransfers,
    state: { coinBalances: [], contracts: [] },
    tokens: []
  }
}

function decodeLogs (receipt: RpcReceipt): LogRow[] {
  return receipt.logs.map((log) => ({
    block_number: num(log.blockNumber),
    log_index: num(log.logIndex),
    transaction_hash: log.transactionHash,
    transaction_index: num(log.transactionIndex),
    address: lower(log.address),
    topic0: log.topics[0] ?? null,
    topic1: log.topics[1] ?? null,
    topic2: log.topics[2] ?? null,
    topic3: log.topics[3] ?? null,
    data: log.data
  }))
}

/** The revert payload (Error(string) or a custom error) of a failed transaction's top frame. */
function revertData (frame: RpcCallFrame | undefined): Hex | null {
  if (frame?.error === undefined || frame.output === undefined || frame.output === '0x') return null
  return frame.output
}

/** Depth-first, as Blockscout numbers internal transactions: index 0 is the transaction's own call. */
export function flattenCallFrames (root: RpcCallFrame, blockNumber: number, transactionIndex: number, transactionHash: Hex): InternalTransactionRow[] {
  const rows: InternalTransactionRow[] = []
  const visit = (frame: RpcCallFrame, traceAddress: number[]): void => {
    const type = frame.type.toLowerCase()
    const isCreate = type === 'create' || type === 'create2'
    rows.push({
      block_number: blockNumber,
      transaction_index: transactionIndex,
      trace_index: rows.length,
      transaction_hash: transactionHash,
      type,
      from: lower(frame.from),
      to: isCreate ? null : lower(frame.to ?? null),
      value: dec(frame.value),
      gas: dec(frame.gas),
      gas_used: dec(frame.gasUsed),
      input: frame.input,
      output: frame.output ?? null,
      error: frame.error ?? null,
      trace_address: traceAddress,
      created_contract: isCreate && frame.error === undefined ? lower(frame.to ?? null) : null
    })
    frame.calls?.forEach((child, i) => visit(child, [...traceAddress, i]))
  }
  visit(root, [])
  return rows
}
