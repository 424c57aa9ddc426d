// Typed summary variables, and amounts in human units.
import { formatUnits } from 'ethers'
import { checksumAddress } from '../decode/checksum.ts'
import type { InterpretationFacts, SummaryVariable, TokenFacts } from './types.ts'

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'

/** An address as a variable: its name and flags from the facts, or the bare checksummed hash. */
export function addressVariable (facts: InterpretationFacts, address: string): SummaryVariable {
  const known = facts.addresses.get(address.toLowerCase())
  return { type: 'address', value: known ?? { hash: checksumAddress(address), name: null, is_contract: false, is_verified: false } }
}

export function tokenVariable (token: TokenFacts): SummaryVariable {
  const address = checksumAddress(token.address)
  return {
    type: 'token',
    value: { address, address_hash: address, name: token.name, symbol: token.symbol, decimals: token.decimals === null ? null : String(token.decimals), type: token.type, icon_url: null }
  }
}

/** `units` in human units ("0.3", "12"): by the token's decimals, as they are when it has none. */
export function humanAmount (units: string | bigint, decimals: number | null): string {
  if (decimals === null) return String(units)
  const text = formatUnits(BigInt(units), decimals)
  return text.endsWith('.0') ? text.slice(0, -2) : text
}

export const currencyVariable = (units: string | bigint, decimals: number | null): SummaryVariable => ({ type: 'currency', value: humanAmount(units, decimals) })
export const nativeVariable = (wei: string | bigint): SummaryVariable => currencyVariable(wei, 18)
export const stringVariable = (value: string): SummaryVariable => ({ type: 'string', value })
export const methodVariable = (value: string): SummaryVariable => ({ type: 'method', value })
export const timestampVariable = (seconds: string | number): SummaryVariable => ({ type: 'timestamp', value: String(seconds) })

/**
 * The token at `address`: as indexed, else one known only by its address
 * (a WETH-like contract that never emitted Transfer is not in the tokens
 * table), with the decimals the caller can vouch for.
 */
export function tokenAt (facts: InterpretationFacts, address: string, assumedDecimals: number | null): TokenFacts {
  const key = address.toLowerCase()
  return facts.tokens.get(key) ?? { address: key, type: 'ERC-20', name: facts.addresses.get(key)?.name ?? null, symbol: null, decimals: assumedDecimals }
}
