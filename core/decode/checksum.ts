// EIP-55 checksummed addresses, kept: a checksum is a keccak256 in
// JavaScript, and the same addresses recur on every REST page, in every
// decoding and in a summary's names and variables. Without this, checksums
// were a third of a transaction page's CPU and the largest item of an
// uncached summary after decoding itself (bench:rest, bench:interpreter).
// One table for the presenters (plugins/present/present.ts) and core.
import { getAddress } from 'ethers'

/** Kept checksums; past it the table starts over (no bookkeeping on a hit; a few MB at most). */
const MAX_KEPT = 100_000
const kept = new Map<string, string>()

/**
 * `address` in its EIP-55 form: 20 bytes, or 0x and 40 hex digits in any case.
 * Throws as ethers' getAddress does on a malformed one.
 */
export function checksumAddress (address: Buffer | string): string {
  const key = typeof address === 'string' ? address.slice(2).toLowerCase() : address.toString('hex')
  let checksummed = kept.get(key)
  if (checksummed === undefined) {
    checksummed = getAddress('0x' + key)
    if (kept.size >= MAX_KEPT) kept.clear()
    kept.set(key, checksummed)
  }
  return checksummed
}
