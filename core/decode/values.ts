// Decoded ABI values rendered as Blockscout renders them (shared doc 3.3):
// integers and booleans as decimal strings, addresses EIP-55, bytes of any
// kind as lowercase 0x-hex, strings as they are (0x-hex when not UTF-8),
// arrays and tuples as nested JSON arrays (tuples positional).
import { hexlify, ParamType } from 'ethers'
import { checksumAddress } from './checksum.ts'

export type DecodedValue = string | DecodedValue[]

const UTF8 = new TextDecoder('utf-8', { fatal: true })

// Both are asked for every parameter of every decoding: a fragment's
// parameters are kept (ABIs and the table are cached), so their answers are
// too. Formatting and parsing a type is most of what decoding a log costs.
const decodingTypes = new WeakMap<ParamType, ParamType>()
const typeNames = new WeakMap<ParamType, string>()

/**
 * The type ethers decodes: `string` read as `bytes` (the same encoding), so
 * that a string that is not UTF-8 is rendered as hex instead of failing.
 */
export function decodingType (param: ParamType): ParamType {
  let type = decodingTypes.get(param)
  if (type === undefined) decodingTypes.set(param, type = ParamType.from(typeName(param).replace(/\bstring\b/g, 'bytes')))
  return type
}

/** The type as Blockscout names it: the canonical type, tuples as `(…)`. */
export function typeName (param: ParamType): string {
  let name = typeNames.get(param)
  if (name === undefined) typeNames.set(param, name = param.format('sighash'))
  return name
}

/** `value` as decoded by ethers for `param` (strings read as bytes), rendered. */
export function renderValue (param: ParamType, value: unknown): DecodedValue {
  if (param.isArray()) return Array.from(value as unknown[], (item) => renderValue(param.arrayChildren, item))
  if (param.isTuple()) return param.components.map((component, i) => renderValue(component, (value as unknown[])[i]))
  const type = param.baseType
  // ethers' address coder answers the EIP-55 form already.
  if (type === 'address') return value as string
  if (type === 'bool') return value === true ? 'true' : 'false'
  if (type.startsWith('uint') || type.startsWith('int')) return (value as bigint).toString()
  if (type === 'string') return utf8OrHex(value as string)
  return hexlify(value as string).toLowerCase()
}

function utf8OrHex (hex: string): string {
  try {
    return UTF8.decode(Buffer.from(hex.slice(2), 'hex'))
  } catch {
    return hex.toLowerCase()
  }
}

/** Renders one 32-byte word (64 lowercase hex digits) of a static type; null where ethers' decoder would throw. */
export type WordReader = (word: string) => DecodedValue | null

const wordReaders = new WeakMap<ParamType, WordReader | null>()
const ZERO_WORD = '0'.repeat(64)
const ADDRESS_PADDING = '0'.repeat(24)

/**
 * How a parameter of a static elementary type (address, bool, intN, uintN,
 * bytesN) is read from its word, answering what ethers' coder answers for it
 * (rendered as renderValue does), without ethers' Result objects and coder
 * instances: most of what decoding a Transfer log cost. Null for any other
 * type, which ethers decodes.
 */
export function wordReader (param: ParamType): WordReader | null {
  let reader = wordReaders.get(param)
  if (reader === undefined) wordReaders.set(param, reader = makeWordReader(param))
  return reader
}

function makeWordReader (param: ParamType): WordReader | null {
  if (param.isArray() || param.isTuple()) return null
  const type = param.baseType
  // ethers: an address word with anything above its 20 bytes does not decode.
  if (type === 'address') return (word) => word.startsWith(ADDRESS_PADDING) ? checksumAddress('0x' + word.slice(24)) : null
  if (type === 'bool') return (word) => word === ZERO_WORD ? 'false' : 'true'
  const integer = /^(u?)int(\d+)$/.exec(type)
  if (integer !== null) {
    // ethers masks the word to the type's width, then reads the sign bit of an intN.
    const bits = BigInt(Number(integer[2]))
    const mask = (1n << bits) - 1n
    if (integer[1] === 'u') return (word) => (BigInt('0x' + word) & mask).toString()
    const sign = 1n << (bits - 1n)
    return (word) => {
      const value = BigInt('0x' + word) & mask
      return (value & sign) === 0n ? value.toString() : (value - (1n << bits)).toString()
    }
  }
  const fixed = /^bytes(\d+)$/.exec(type)
  if (fixed !== null) {
    const digits = Number(fixed[1]) * 2
    return (word) => '0x' + word.slice(0, digits)
  }
  return null
}
