// Blockscout's SearchItem shapes (discriminated by `type`) from search hits,
// and the one schema that serialises every variant.
import { getAddress } from 'ethers'
import type { ContractHit, ExactHit, TokenHit } from '../../core/queries/search/search.ts'
import { epochTimestamp } from './present.ts'
import { nullable } from './schemas.ts'

// Blockscout lists exact matches before name matches and says so in `priority`.
const EXACT_PRIORITY = 3
const TOKEN_EXACT_NAME_PRIORITY = 2
const TOKEN_PREFIX_PRIORITY = 0
const CONTRACT_PRIORITY = 0

export const searchItem = {
  type: 'object',
  required: ['type', 'priority'],
  properties: {
    type: { type: 'string', enum: ['token', 'address', 'contract', 'block', 'transaction'] },
    priority: { type: 'integer' },
    name: nullable('string'),
    symbol: nullable('string'),
    address_hash: { type: 'string' },
    token_url: { type: 'string' },
    address_url: { type: 'string' },
    url: { type: 'string' },
    icon_url: nullable('string'),
    token_type: { type: 'string' },
    is_smart_contract_verified: { type: 'boolean' },
    is_smart_contract_address: { type: 'boolean' },
    exchange_rate: nullable('string'),
    total_supply: nullable('string'),
    circulating_market_cap: nullable('string'),
    is_verified_via_admin_panel: { type: 'boolean' },
    certified: { type: 'boolean' },
    reputation: { type: 'string' },
    ens_info: { type: ['object', 'null'], additionalProperties: true },
    block_number: { type: 'integer' },
    block_hash: { type: 'string' },
    block_type: { type: 'string' },
    transaction_hash: { type: 'string' },
    timestamp: { type: 'string' }
  }
} as const

export function presentExactHit (hit: ExactHit) {
  switch (hit.kind) {
    case 'block':
      return { type: 'block' as const, priority: EXACT_PRIORITY, block_number: hit.number, block_hash: hit.hash, url: `/block/${hit.hash}`, timestamp: epochTimestamp(hit.timestamp), block_type: 'block' }
    case 'transaction':
      return { type: 'transaction' as const, priority: EXACT_PRIORITY, transaction_hash: hit.hash, url: `/tx/${hit.hash}`, timestamp: epochTimestamp(hit.timestamp) }
    case 'token':
      return { ...presentTokenHit(hit), priority: EXACT_PRIORITY }
    case 'address':
      return addressResult('address', EXACT_PRIORITY, hit.hash, hit.verified_name, { verified: hit.verified_name !== null, contract: hit.is_contract })
  }
}

export function presentTokenHit (token: TokenHit) {
  const address = getAddress(token.address)
  return {
    type: 'token' as const,
    priority: token.exact ? TOKEN_EXACT_NAME_PRIORITY : TOKEN_PREFIX_PRIORITY,
    name: token.name,
    symbol: token.symbol,
    address_hash: address,
    token_url: `/token/${address}`,
    address_url: `/address/${address}`,
    icon_url: null,
    token_type: token.type,
    is_smart_contract_verified: token.verified,
    // A token is a contract by definition: its transfers came from its code.
    is_smart_contract_address: true,
    exchange_rate: null,
    total_supply: token.total_supply,
    circulating_market_cap: null,
    is_verified_via_admin_panel: false,
    certified: false,
    reputation: 'ok'
  }
}

/** A verified contract found by name, as Blockscout's `contract` result (priority 0, as its search gives it). */
export function presentContractHit (hit: ContractHit) {
  return addressResult('contract', CONTRACT_PRIORITY, hit.address, hit.name, { verified: true, contract: true })
}

/** Blockscout's `address` and `contract` results: one shape, an address page's link. */
function addressResult<Type extends 'address' | 'contract'> (type: Type, priority: number, hash: string, name: string | null, is: { verified: boolean, contract: boolean }) {
  const address = getAddress(hash)
  return {
    type,
    priority,
    name,
    address_hash: address,
    url: `/address/${address}`,
    is_smart_contract_verified: is.verified,
    is_smart_contract_address: is.contract,
    ens_info: null,
    certified: false,
    reputation: 'ok'
  }
}
