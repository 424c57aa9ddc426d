// EIP-55 checksummed addresses, kept: a checksum is a keccak256 in
// JavaScript, and one summary's decodings, names and variables write the
// same few dozen addresses several times each (a token, a router and their
// callers recur across transactions too). bench:interpreter's profile had
// checksums as the largest item of an uncached summary after decoding itself.
import { getAddress } from 'ethers'

/** Kept checksums; past it the table starts over (a few MB at most). */
const MAX_KEPT = 50_000
const kept = new Map<string, string>()

/** `address` (0x and 40 hex digits, any case) in its EIP-55 form; throws as ethers' getAddress does on a malformed one. */
export function checksumAddress (address: string): string {
  const key = address.toLowerCase()
  let checksummed = kept.get(key)
  if (checksummed === undefined) {
    checksummed = getAddress(key)
    if (kept.size >= MAX_KEPT) kept.clear()
    kept.set(key, checksummed)
  }
  return checksummed
}
