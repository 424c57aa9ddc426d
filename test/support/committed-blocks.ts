// What the indexer announces after a commit (its block event), made up for
// tests that fire that event themselves: subscriptions answer from these rows
// without a chain.
import type { CommittedBlock, Hex, TokenTransferRow, TransactionRow } from '../../core/indexer/types.ts'

export const fakeHash = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`

export const SENDER: Hex = `0x${'22'.repeat(20)}`
export const RECIPIENT: Hex = `0x${'33'.repeat(20)}`

function transactionRow (block: number, index: number, input: Hex): TransactionRow {
  return {
    hash: fakeHash(block * 1000 + index),
    block_number: block,
    transaction_index: index,
    from: SENDER,
    to: RECIPIENT,
    value: '1',
    gas: '21000',
    gas_price: '7',
    max_fee_per_gas: null,
    max_priority_fee_per_gas: null,
    type: 0,
    nonce: String(index),
    input,
    status: 1,
    gas_used: '21000',
    cumulative_gas_used: '21000',
    effective_gas_price: '7',
    created_contract: null,
    error: null,
    revert_reason: null,
    has_token_transfers: false
  }
}

/** Block `n` with `transactions` transactions (each sending `input`) and an ERC-20 transfer of each token in `tokens` in its first one. */
export function committedBlock (n: number, { transactions = 1, input = '0x', tokens = [] }: { transactions?: number, input?: Hex, tokens?: Hex[] } = {}): CommittedBlock {
  const rows = Array.from({ length: transactions }, (_, i) => transactionRow(n, i, input))
  const tokenTransfers: TokenTransferRow[] = tokens.map((token, i) => ({
    block_number: n,
    log_index: i,
    batch_index: 0,
    transaction_hash: rows[0]!.hash,
    transaction_index: 0,
    token_address: token,
    token_type: 'ERC-20',
    from: SENDER,
    to: RECIPIENT,
    amount: String(n),
    token_id: null
  }))
  return {
    block: {
      number: n,
      hash: fakeHash(n),
      parent_hash: fakeHash(n - 1),
      timestamp: 1_700_000_000 + n,
      miner: `0x${'00'.repeat(20)}`,
      signer: `0x${'11'.repeat(20)}`,
      gas_limit: '30000000',
      gas_used: '21000',
      base_fee_per_gas: '7',
      size: 600,
      nonce: '0x0000000000000000',
      difficulty: '2',
      total_difficulty: String(2 * n + 1),
      extra_data: '0x',
      transaction_count: transactions,
      internal_transaction_count: 0
    },
    transactions: rows,
    tokenTransfers
  }
}
