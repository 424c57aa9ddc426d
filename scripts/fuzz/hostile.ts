// Values a hostile client sends, for every interface: injection strings,
// numbers past every integer type, unicode and look-alike characters inside
// otherwise valid hashes, and the real hashes and addresses of the fuzzed
// chain (harvest.ts) so that generated requests also reach the code behind
// validation.
import fc from 'fast-check'

/** Real values of the chain under test, read from the gateway before fuzzing. */
export type Known = {
  blockNumbers: number[]
  blockHashes: string[]
  transactionHashes: string[]
  addresses: string[]
  tokens: string[]
  /** `next_page_params` objects of real list pages, to tamper with. */
  cursors: Array<Record<string, unknown>>
}

const INJECTIONS = [
  "' OR '1'='1", "'; drop table blocks; --", '" OR ""="', '1 OR 1=1', "0x' union select null, version() --",
  "\\'; select pg_sleep(5); --", '$1', '%', '_', '\\', "E'\\\\x00'", '\u0000', '%00', '$' + '{jndi:ldap://x}', '{{7*7}}',
  '<script>alert(1)</script>', '../../../../etc/passwd', '..%2f..%2f', '%zz', '%E0%A4%A', 'null', 'undefined', 'true',
  '[]', '{}', '__proto__', 'constructor', 'prototype', 'NaN', 'Infinity', '-Infinity', ' ', '\t\r\n', ''
]

const NUMBERS = [
  '0', '-0', '-1', '1.5', '1e308', '1e-308', '9007199254740993', '18446744073709551616',
  '115792089237316195423570985008687907853269984665640564039457584007913129639936',
  '9'.repeat(400), '0x', '0x0', '0x00', '0x-1', '0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
  '0x' + 'f'.repeat(200), '0b101', '0o17', '1_000', '+1', '01', ' 1', '1 '
]

/** Characters that look like hex digits or `x` and are not (Cyrillic, Greek, fullwidth, zero-width). */
const LOOKALIKES = ['а', 'е', 'с', 'ο', 'Ο', '０', '１', 'ｘ', 'х', 'ⅽ', '\u200b', '\u00a0', 'ß', 'İ', 'ﬀ', '\ufeff']

export const injection = fc.constantFrom(...INJECTIONS)
export const hugeNumber = fc.constantFrom(...NUMBERS)

/** A valid-looking 0x-hex value of `hexDigits` digits with one character swapped for a look-alike, or changed case/length. */
export const tamperedHex = (valid: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(valid, fc.nat(), fc.constantFrom(...LOOKALIKES), fc.integer({ min: 0, max: 5 })).map(([value, at, glyph, how]) => {
    const i = 2 + (at % Math.max(1, value.length - 2))
    switch (how) {
      case 0: return value.slice(0, i) + glyph + value.slice(i + 1)
      case 1: return value.slice(0, i) + glyph + value.slice(i)
      case 2: return value.toUpperCase()
      case 3: return value.slice(0, -1)
      case 4: return value + '0'
      default: return value.slice(2)
    }
  })

export const hexOf = (bytes: number): fc.Arbitrary<string> =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => '0x' + Buffer.from(b).toString('hex'))

/** Anything a string field may be sent: hostile, unicode, long, or a plausible value. */
export function hostileString (known: Known): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: injection },
    { weight: 3, arbitrary: hugeNumber },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 2, arbitrary: tamperedHex(knownHash(known)) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 6000 }).map((n) => 'a'.repeat(n)) },
    { weight: 2, arbitrary: plausible(known) }
  )
}

/** A real hash or address of the chain, or a well-formed one it does not hold. */
export function knownHash (known: Known): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...known.transactionHashes, ...known.blockHashes),
    fc.constantFrom(...known.addresses, ...known.tokens),
    hexOf(32),
    hexOf(20)
  )
}

/** Values the routes expect: block numbers, hashes, addresses. */
export function plausible (known: Known): fc.Arbitrary<string> {
  return fc.oneof(
    knownHash(known),
    fc.constantFrom(...known.blockNumbers).map(String),
    fc.constantFrom('latest', 'earliest', 'pending', 'safe', 'finalized'),
    fc.nat().map(String)
  )
}

/** Any JSON value, weighted towards the hostile strings and huge numbers. */
export function hostileJson (known: Known): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: hostileString(known) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.constantFrom(1e308, -1, 2 ** 53 + 2, 0.5, Number.MAX_SAFE_INTEGER, -0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 200 }).map((depth) => JSON.parse(nestedJson(depth))) }
  )
}

/**
 * `[{"a":[{"a":...1...}]}]` `depth` levels deep, as text: recursive validators
 * must not overflow the stack (nor may JSON.stringify here, hence text).
 */
export function nestedJson (depth: number): string {
  const open = Array.from({ length: depth }, (_, i) => i % 2 === 0 ? '[' : '{"a":').join('')
  const close = Array.from({ length: depth }, (_, i) => i % 2 === 0 ? ']' : '}').reverse().join('')
  return open + '1' + close
}

/** Lone surrogates replaced by U+FFFD: they cannot be percent-encoded (URIError) or sent as UTF-8. */
export function wellFormed (text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
}
