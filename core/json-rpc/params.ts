// Validators for JSON-RPC params. Each returns undefined when the value is
// good, or a short reason naming what is wrong; the caller adds which param.

export type Check = (value: unknown) => string | undefined

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/
const HEX_HASH = /^0x[0-9a-fA-F]{64}$/
// Geth's hexutil rejects leading zeros and empty quantities ("0x", "0x01").
const HEX_QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,63})$/
const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/
const HEX_UP_TO_32_BYTES = /^0x[0-9a-fA-F]{1,64}$/
const BLOCK_TAGS = new Set(['latest', 'earliest', 'pending', 'safe', 'finalized'])

const pattern = (re: RegExp, what: string): Check => (v) =>
  typeof v === 'string' && re.test(v) ? undefined : `expected ${what}, got ${describe(v)}`

export const address = pattern(HEX_ADDRESS, 'a 20-byte hex address')
export const hash = pattern(HEX_HASH, 'a 32-byte hex hash')
export const quantity = pattern(HEX_QUANTITY, 'a hex quantity without leading zeros')
export const data = pattern(HEX_DATA, 'hex data with an even number of digits')
export const storageSlot = pattern(HEX_UP_TO_32_BYTES, 'a hex storage slot of at most 32 bytes')
export const filterId = pattern(HEX_UP_TO_32_BYTES, 'a hex filter id')

export const bool: Check = (v) => typeof v === 'boolean' ? undefined : `expected true or false, got ${describe(v)}`

export const blockTag: Check = (v) =>
  typeof v === 'string' && (BLOCK_TAGS.has(v) || HEX_QUANTITY.test(v))
    ? undefined
    : `expected a block number or one of ${[...BLOCK_TAGS].join(', ')}, got ${describe(v)}`

/** EIP-1898: a tag or number, a bare block hash, or { blockNumber } / { blockHash, requireCanonical }. */
export const blockRef: Check = (v) => {
  if (typeof v === 'string') return HEX_HASH.test(v) ? undefined : blockTag(v)
  if (isObject(v)) {
    if ('blockHash' in v) return hash(v.blockHash) ?? optional(bool)(v.requireCanonical) ?? onlyKeys(v, ['blockHash', 'requireCanonical'])
    if ('blockNumber' in v) return blockTag(v.blockNumber) ?? onlyKeys(v, ['blockNumber'])
  }
  return `expected a block number, tag or hash, got ${describe(v)}`
}

export const blockTagOrHash: Check = (v) => typeof v === 'string' && HEX_HASH.test(v) ? undefined : blockTag(v)

export const optional = (check: Check): Check => (v) => v === undefined || v === null ? undefined : check(v)

export const arrayOf = (check: Check, max = Infinity): Check => (v) => {
  if (!Array.isArray(v)) return `expected an array, got ${describe(v)}`
  if (v.length > max) return `expected at most ${max} items`
  for (const [i, item] of v.entries()) {
    const reason = check(item)
    if (reason !== undefined) return `[${i}]: ${reason}`
  }
  return undefined
}

/** An object whose listed keys, where present, pass their checks; other keys pass untouched. */
export const fields = (spec: Record<string, Check>): Check => (v) => {
  if (!isObject(v)) return `expected an object, got ${describe(v)}`
  for (const [key, check] of Object.entries(spec)) {
    const reason = optional(check)(v[key])
    if (reason !== undefined) return `${key}: ${reason}`
  }
  return undefined
}

const accessList = arrayOf(fields({ address, storageKeys: arrayOf(hash) }))

/** A transaction or call object. Unknown keys pass: Geth ignores them and libraries add their own. */
export const transaction = fields({
  from: address,
  to: address,
  gas: quantity,
  gasPrice: quantity,
  maxFeePerGas: quantity,
  maxPriorityFeePerGas: quantity,
  value: quantity,
  nonce: quantity,
  type: quantity,
  chainId: quantity,
  data,
  input: data,
  accessList
})

const topic = (v: unknown) => v === null ? undefined : hash(v)
const topics = arrayOf((v) => Array.isArray(v) ? arrayOf(topic)(v) : topic(v), 4)

export const filter: Check = (v) => {
  const reason = fields({ fromBlock: blockTag, toBlock: blockTag, blockHash: hash, topics })(v)
  if (reason !== undefined) return reason
  const f = v as Record<string, unknown>
  if (f.address !== undefined && f.address !== null) {
    const addressReason = Array.isArray(f.address) ? arrayOf(address)(f.address) : address(f.address)
    if (addressReason !== undefined) return `address: ${addressReason}`
  }
  if (f.blockHash !== undefined && (f.fromBlock !== undefined || f.toBlock !== undefined)) {
    return 'blockHash cannot be combined with fromBlock or toBlock'
  }
  return undefined
}

/** eth_feeHistory block count: hex or decimal, as Geth accepts both. */
export const blockCount: Check = (v) =>
  (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 1024) || quantity(v) === undefined
    ? undefined
    : `expected a block count (hex or integer 1..1024), got ${describe(v)}`

export const percentiles: Check = (v) => {
  const reason = arrayOf((p) => typeof p === 'number' && p >= 0 && p <= 100 ? undefined : 'expected a number 0..100', 100)(v)
  if (reason !== undefined) return reason
  const list = v as number[]
  return list.every((p, i) => i === 0 || p >= list[i - 1]!) ? undefined : 'percentiles must be ascending'
}

/** eth_call state overrides: address -> account override object. */
export const stateOverrides: Check = (v) => {
  if (!isObject(v)) return `expected an object, got ${describe(v)}`
  for (const [key, override] of Object.entries(v)) {
    const reason = address(key) ?? fields({ balance: quantity, nonce: quantity, code: data })(override)
    if (reason !== undefined) return `${key}: ${reason}`
  }
  return undefined
}

/**
 * Whether arrays or objects in `value` nest more than `maxDepth` levels deep.
 * Walked with a stack of its own: a hostile depth must not overflow ours.
 */
export function isNestedDeeperThan (value: unknown, maxDepth: number): boolean {
  const stack: Array<{ value: unknown, depth: number }> = [{ value, depth: 0 }]
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!
    if (v === null || typeof v !== 'object') continue
    if (depth === maxDepth) return true
    for (const child of Object.values(v)) stack.push({ value: child, depth: depth + 1 })
  }
  return false
}

function onlyKeys (v: Record<string, unknown>, keys: string[]): string | undefined {
  const extra = Object.keys(v).find((k) => !keys.includes(k))
  return extra === undefined ? undefined : `unexpected field ${extra}`
}

export function isObject (v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

export function describe (v: unknown): string {
  if (v === undefined) return 'nothing'
  const text = JSON.stringify(v)
  return text.length > 80 ? text.slice(0, 77) + '...' : text
}
