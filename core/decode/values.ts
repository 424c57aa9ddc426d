// Decoded ABI values rendered as Blockscout renders them (shared doc 3.3):
// integers and booleans as decimal strings, addresses EIP-55, bytes of any
// kind as lowercase 0x-hex, strings as they are (0x-hex when not UTF-8),
// arrays and tuples as nested JSON arrays (tuples positional).
import { hexlify, ParamType } from 'ethers'

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
