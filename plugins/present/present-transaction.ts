// Blockscout's Transaction and TokenTransfer shapes from stored rows.
import type { TransactionJsonRow } from '../../core/queries/transactions/rest-transaction-json.ts'
import type { TokenTransferRecord } from '../../core/queries/tokens/token-transfers.ts'
import { addressJson, addressObject, epochTimestamp } from './present.ts'
import { presentToken as presentTokenObject } from './present-token.ts'
import { ZERO_ADDRESS } from '../../core/indexer/types.ts'
import type { DecodedInput } from '../../core/decode/index.ts'
import { NO_NAMES, type AddressNames } from '../../core/address-names/index.ts'

// The members PostgreSQL does not write (core/queries/transactions/rest-transaction-json.ts):
// nothing this index knows of (prices need an exchange feed) or that clique
// Geth 1.13 has (EIP-7702, FHE).
const CONSTANT_MEMBERS = ',"transaction_tag":null,"exchange_rate":null,' +
  '"historic_exchange_rate":null,"authorization_list":[],"is_pending_update":false,"fhe_operations_count":0'

/**
 * A transaction's `method`, as Blockscout gives it: the decoded function's
 * name, or else the input's selector (null for an input shorter than one).
 * Its token transfers carry the same.
 */
export function methodOf (input: string, decoded: DecodedInput | null): string | null {
  return decoded !== null ? decoded.method_call.slice(0, decoded.method_call.indexOf('(')) : input.length >= 10 ? input.slice(0, 10) : null
}

/** The input's members: the hex as it is, `method` (methodOf), and the decoding. */
function inputMembers (input: string, decoded: DecodedInput | null): string {
  return ',"raw_input":"' + input + '","method":' + JSON.stringify(methodOf(input, decoded)) + ',"decoded_input":' + (decoded === null ? 'null' : JSON.stringify(decoded))
}

/**
 * Blockscout's Transaction as JSON text: PostgreSQL's members with the address
 * objects spliced in, the input's decoding (core/decode; null when nothing
 * decodes it), `confirmationDuration` (JSON text: confirmation-duration.ts) and
 * the page's address names (core/address-names). Lists carry no token
 * transfers (null); the detail passes its first ones as JSON text and
 * whether there are more.
 */
export function transactionJson (tx: TransactionJsonRow, confirmationDuration: string, decoded: DecodedInput | null, names: AddressNames, tokenTransfers = 'null', overflow = 'null'): string {
  return '{"from":' + addressJson(tx.from, tx.from_is_contract, names) +
    ',"to":' + (tx.to === null ? 'null' : addressJson(tx.to, tx.to_is_contract, names)) +
    ',"created_contract":' + (tx.created_contract === null ? 'null' : addressJson(tx.created_contract, true, names)) +
    ',"timestamp":"' + epochTimestamp(tx.timestamp) + '",' + tx.members + inputMembers(tx.input, decoded) +
    ',"token_transfers":' + tokenTransfers + ',"token_transfers_overflow":' + overflow + ',"confirmation_duration":' + confirmationDuration + CONSTANT_MEMBERS + '}'
}

/** A few members of a transaction's JSON text, for a page's cursor. */
export function transactionMembers (tx: TransactionJsonRow): { hash: string, timestamp: string, value: string, fee: { value: string } } {
  return { ...JSON.parse('{' + tx.members + '}'), timestamp: epochTimestamp(tx.timestamp) }
}

export function presentToken (t: TokenTransferRecord) {
  return presentTokenObject({
    address: t.token_address, type: t.token_type, name: t.name, symbol: t.symbol, decimals: t.decimals, total_supply: t.total_supply, holder_count: t.holder_count
  })
}

export function total (t: Pick<TokenTransferRecord, 'amount' | 'token_id' | 'decimals'> & { token_type: string }) {
  if (t.token_type === 'ERC-20') return { value: t.amount, decimals: t.decimals === null ? null : String(t.decimals) }
  if (t.token_type === 'ERC-721') return { token_id: t.token_id, token_instance: null }
  return { token_id: t.token_id, value: t.amount, decimals: null, token_instance: null }
}

/** The addresses a transaction shows, for the page's names. */
export const transactionAddresses = (tx: Pick<TransactionJsonRow, 'from' | 'to' | 'created_contract'>): Array<string | null> => [tx.from, tx.to, tx.created_contract]

/** The selector a transfer's transaction called, or null for an input shorter than one. */
export const transferSelector = (t: Pick<TokenTransferRecord, 'method_id'>): string | null => t.method_id.length === 10 ? t.method_id : null

/** The addresses a token transfer shows (its token's is in the token object, by name and symbol). */
export const tokenTransferAddresses = (t: Pick<TokenTransferRecord, 'from' | 'to'>): string[] => [t.from, t.to]

/**
 * `method`: its transaction's (methodOf, see decodings.ts's transferMethods);
 * without one, the selector the row carries.
 */
export function presentTokenTransfer (t: TokenTransferRecord, names: AddressNames = NO_NAMES, method: string | null = transferSelector(t)) {
  const { from, to } = t
  return {
    transaction_hash: t.transaction_hash,
    from: addressObject(t.from, t.from_is_contract, names),
    to: addressObject(t.to, t.to_is_contract, names),
    total: total(t),
    token: presentToken(t),
    type: from === ZERO_ADDRESS ? 'token_minting' : to === ZERO_ADDRESS ? 'token_burning' : 'token_transfer',
    timestamp: epochTimestamp(t.timestamp),
    method,
    block_hash: t.block_hash,
    block_number: t.block_number,
    log_index: t.log_index,
    token_type: t.token_type
  }
}
