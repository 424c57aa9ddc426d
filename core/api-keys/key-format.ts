// What an API key looks like: `tg_` and 32 random bytes in base64url (256 bits).
import { createHash, randomBytes } from 'node:crypto'

export const KEY_PREFIX = 'tg_'
const KEY_BYTES = 32
/** base64url of 32 bytes, unpadded, is 43 characters. */
const KEY_PATTERN = /^tg_[A-Za-z0-9_-]{43}$/

/** A new key, to be shown once and then forgotten: only its hash is stored. */
export function generateApiKey (): string {
  return KEY_PREFIX + randomBytes(KEY_BYTES).toString('base64url')
}

/** A cheap shape check, so that garbage is refused before any hashing or lookup. */
export function isWellFormedApiKey (text: string): boolean {
  return text.length === KEY_PREFIX.length + 43 && KEY_PATTERN.test(text)
}

/**
 * The stored form of a key. One round of SHA-256 is enough here, unlike for a
 * password: a key is 256 random bits, so there is no dictionary to try and a
 * stolen table of hashes cannot be inverted by guessing; slow, salted hashes
 * exist to protect low-entropy secrets. A plain digest also makes the lookup
 * one indexed equality (O(1)), which a per-row salt would prevent.
 */
export function hashApiKey (key: string): Buffer {
  return createHash('sha256').update(key).digest()
}
