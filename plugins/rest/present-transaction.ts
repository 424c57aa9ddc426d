// Blockscout's Transaction and TokenTransfer shapes from stored rows.
import type { TokenTransferRecord, TransactionRecord } from '../../core/queries/transactions.ts'
import { addressObject, epochTimestamp, hex, timestamp } from './present.ts'
import { presentToken as presentTokenObject } from './present-token.ts'

const ZERO_ADDRESS = '0x' + '00'.repeat(20)

/** Blockscout's result text: "success", or the error ("Reverted" for a revert). */
function resultText (tx: TransactionRecord): string {
  if (tx.status === 1) return 'success'
  return tx.error === null || tx.error === 'execution reverted' ? 'Reverted' : tx.error
}

function transactionTypes (tx: TransactionRecord): string[] {
  const types: string[] = []
  if (tx.has_token_transfers) types.push('token_transfer')
  if (tx.to === null) types.push(tx.creates_token ? 'token_creation' : 'contract_creation')
  else if (tx.to_is_contract && tx.input !== '0x') types.push('contract_call')
  if (BigInt(tx.value) > 0n || types.length === 0) types.push('coin_transfer')
  return types
}

export function presentTransaction (tx: TransactionRecord, tokenTransfers: ReturnType<typeof presentTokenTransfer>[] | null, overflow: boolean | null) {
  const gasUsed = BigInt(tx.gas_used)
  const price = BigInt(tx.effective_gas_price)
  const baseFee = tx.base_fee_per_gas === null ? null : BigInt(tx.base_fee_per_gas)
  const result = resultText(tx)
  return {
    hash: tx.hash,
    result,
    status: tx.status === 1 ? 'ok' : 'error',
    block_number: tx.block_number,
    timestamp: epochTimestamp(tx.timestamp),
    confirmations: Math.max(0, tx.indexed_head - tx.block_number + 1),
    confirmation_duration: [],
    from: addressObject(tx.from, tx.from_is_contract),
    to: tx.to === null ? null : addressObject(tx.to, tx.to_is_contract),
    created_contract: tx.created_contract === null ? null : addressObject(tx.created_contract, true),
    value: tx.value,
    fee: { type: 'actual', value: (gasUsed * price).toString() },
    gas_price: tx.effective_gas_price,
    gas_used: tx.gas_used,
    gas_limit: tx.gas,
    max_fee_per_gas: tx.max_fee_per_gas,
    max_priority_fee_per_gas: tx.max_priority_fee_per_gas,
    base_fee_per_gas: tx.base_fee_per_gas,
    priority_fee: baseFee === null ? null : ((price - baseFee) * gasUsed).toString(),
    transaction_burnt_fee: baseFee === null ? null : (baseFee * gasUsed).toString(),
    type: tx.type,
    nonce: Number(tx.nonce),
    position: tx.transaction_index,
    raw_input: tx.input,
    // Decoding needs an ABI: it comes with contract verification.
    decoded_input: null,
    // 0x and four bytes: the selector.
    method: tx.input.length >= 10 ? tx.input.slice(0, 10) : null,
    revert_reason: /reverted/i.test(result) ? { raw: tx.revert_reason } : null,
    token_transfers: tokenTransfers,
    token_transfers_overflow: overflow,
    transaction_types: transactionTypes(tx),
    transaction_tag: null,
    exchange_rate: null,
    historic_exchange_rate: null,
    has_error_in_internal_transactions: tx.has_internal_error,
    authorization_list: [],
    is_pending_update: false,
    fhe_operations_count: 0
  }
}

export function presentToken (t: TokenTransferRecord) {
  return presentTokenObject({
    address: t.token_address, type: t.token_type, name: t.name, symbol: t.symbol, decimals: t.decimals, total_supply: t.total_supply, holder_count: t.holder_count
  })
}

function total (t: TokenTransferRecord) {
  if (t.token_type === 'ERC-20') return { value: t.amount, decimals: t.decimals === null ? null : String(t.decimals) }
  if (t.token_type === 'ERC-721') return { token_id: t.token_id, token_instance: null }
  return { token_id: t.token_id, value: t.amount, decimals: null, token_instance: null }
}

export function presentTokenTransfer (t: TokenTransferRecord) {
  const from = hex(t.from)
  const to = hex(t.to)
  return {
    transaction_hash: hex(t.transaction_hash),
    from: addressObject(t.from, t.from_is_contract),
    to: addressObject(t.to, t.to_is_contract),
    total: total(t),
    token: presentToken(t),
    type: from === ZERO_ADDRESS ? 'token_minting' : to === ZERO_ADDRESS ? 'token_burning' : 'token_transfer',
    timestamp: timestamp(t.timestamp),
    method: t.method_id.length === 4 ? hex(t.method_id) : null,
    block_hash: hex(t.block_hash),
    block_number: t.block_number,
    log_index: t.log_index,
    token_type: t.token_type
  }
}
