// Pure decoding of a call's input and of a log, in Blockscout's shapes
// (decoded_input, a log's decoded). Resolution order, as Blockscout's
// (shared doc 3.3): the ABI given (the target's verified ABI, combined with
// its proxy implementation's), else the table of every verified ABI given,
// else the bundled selector table, the first candidate that decodes winning,
// else null. Malformed input gives null,
// never an exception: these run on whatever anyone sent to the chain.
import { AbiCoder, Interface, type EventFragment, type FunctionFragment, type ParamType } from 'ethers'
import { decodingType, renderValue, typeName, wordReader, type DecodedValue } from './values.ts'
import { BUNDLED_TABLE, EMPTY_TABLE, type SelectorTable } from './table.ts'

export type Abi = readonly unknown[]
export type DecodedParameter = { name: string, type: string, value: DecodedValue }
export type DecodedInput = { method_id: string, method_call: string, parameters: DecodedParameter[] }
export type DecodedLog = { method_id: string, method_call: string, parameters: Array<DecodedParameter & { indexed: boolean }> }

const coder = AbiCoder.defaultAbiCoder()
const HEX = /^0x(?:[0-9a-fA-F]{2})*$/
const interfaces = new WeakMap<Abi, Interface | null>()

/** The ABI's Interface, or null when it is not one ethers reads. Cached per ABI array. */
function interfaceOf (abi: Abi): Interface | null {
  let iface = interfaces.get(abi)
  if (iface === undefined) {
    try {
      iface = new Interface(abi as never)
    } catch {
      iface = null
    }
    interfaces.set(abi, iface)
  }
  return iface
}

const paramName = (p: ParamType, i: number) => p.name === '' ? `arg${i}` : p.name

function decodeValues (params: readonly ParamType[], data: string): DecodedValue[] | null {
  const readers = params.map(wordReader)
  if (readers.every((r) => r !== null)) {
    // One word a parameter; more data is ignored, as ethers' decoder ignores it.
    if (data.length < 2 + 64 * readers.length) return null
    const values: DecodedValue[] = []
    for (let i = 0; i < readers.length; i++) {
      const value = readers[i]!(data.slice(2 + 64 * i, 66 + 64 * i).toLowerCase())
      if (value === null) return null
      values.push(value)
    }
    return values
  }
  try {
    const values = coder.decode(params.map(decodingType), data)
    return params.map((p, i) => renderValue(p, values[i]))
  } catch {
    return null
  }
}

function decodeFunction (fragment: FunctionFragment, input: string): DecodedInput | null {
  const values = decodeValues(fragment.inputs, '0x' + input.slice(10))
  if (values === null) return null
  return {
    method_id: input.slice(2, 10).toLowerCase(),
    method_call: `${fragment.name}(${fragment.inputs.map((p, i) => `${typeName(p)} ${paramName(p, i)}`).join(', ')})`,
    parameters: fragment.inputs.map((p, i) => ({ name: paramName(p, i), type: typeName(p), value: values[i]! }))
  }
}

/**
 * A call's input decoded: by `abi` first when given, else by `verified` (the
 * fragments of every verified ABI), else by the bundled table; null when
 * nothing fits.
 */
export function decodeInput (input: string, abi: Abi | null, verified: SelectorTable = EMPTY_TABLE): DecodedInput | null {
  if (typeof input !== 'string' || input.length < 10 || !HEX.test(input)) return null
  const selector = input.slice(0, 10).toLowerCase()
  const own = abi === null ? null : interfaceOf(abi)?.getFunction(selector) ?? null
  const candidates = [...(own === null ? [] : [own]), ...verified.functions(selector), ...BUNDLED_TABLE.functions(selector)]
  for (const fragment of candidates) {
    const decoded = decodeFunction(fragment, input)
    if (decoded !== null) return decoded
  }
  return null
}

// An indexed parameter of a dynamic type is stored as the hash of its
// encoding: Blockscout shows that hash.
const isHashedInTopic = (p: ParamType) => p.isArray() || p.isTuple() || p.baseType === 'string' || p.baseType === 'bytes'

function decodeEvent (fragment: EventFragment, topics: readonly string[], data: string): DecodedLog | null {
  if (fragment.anonymous) return null
  const indexed = fragment.inputs.filter((p) => p.indexed === true)
  if (indexed.length !== topics.length - 1) return null
  const topicValues: DecodedValue[] = []
  for (const [i, p] of indexed.entries()) {
    const topic = topics[i + 1]!
    const value = isHashedInTopic(p) ? [topic.toLowerCase()] : decodeValues([p], topic)
    if (value === null) return null
    topicValues.push(value[0]!)
  }
  const dataParams = fragment.inputs.filter((p) => p.indexed !== true)
  const dataValues = decodeValues(dataParams, data)
  if (dataValues === null) return null
  let nextTopic = 0
  let nextData = 0
  return {
    method_id: topics[0]!.slice(2, 10).toLowerCase(),
    method_call: `${fragment.name}(${fragment.inputs.map((p, i) => `${typeName(p)}${p.indexed === true ? ' indexed' : ''} ${paramName(p, i)}`).join(', ')})`,
    parameters: fragment.inputs.map((p, i) => ({
      name: paramName(p, i),
      type: typeName(p),
      indexed: p.indexed === true,
      value: p.indexed === true ? topicValues[nextTopic++]! : dataValues[nextData++]!
    }))
  }
}

/** A log decoded: by `abi` (the emitter's) first when given, else by `verified`, else by the bundled table; null when nothing fits. */
export function decodeLog (topics: ReadonlyArray<string | null>, data: string, abi: Abi | null, verified: SelectorTable = EMPTY_TABLE): DecodedLog | null {
  const present = topics.filter((t): t is string => t !== null)
  if (present.length === 0 || present.length > 4 || !present.every((t) => t.length === 66 && HEX.test(t))) return null
  if (typeof data !== 'string' || !HEX.test(data)) return null
  const topic0 = present[0]!.toLowerCase()
  const own = abi === null ? null : interfaceOf(abi)?.getEvent(topic0) ?? null
  const candidates = [...(own === null ? [] : [own]), ...verified.events(topic0), ...BUNDLED_TABLE.events(topic0)]
  for (const fragment of candidates) {
    const decoded = decodeEvent(fragment, present, data)
    if (decoded !== null) return decoded
  }
  return null
}
