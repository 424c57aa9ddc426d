// The decoder the gateway uses: the pure decoding of decode.ts over ABIs
// found through an AbiSource (contract verification's store), with bounded
// caches so that a page of transactions to the same contracts decodes each
// distinct input once.
import { decodeInput, decodeLog, type Abi, type DecodedInput, type DecodedLog } from './decode.ts'
import { createLru } from './lru.ts'
import { EMPTY_TABLE, type SelectorTable } from './table.ts'

export { decodeInput, decodeLog, type Abi, type DecodedInput, type DecodedLog, type DecodedParameter } from './decode.ts'
export { createAbiTable, BUNDLED_TABLE, EMPTY_TABLE, type AbiTable, type SelectorTable } from './table.ts'

/**
 * What decodes an address's calls and logs. `name` is the address's own
 * verified name: null when it is not verified itself and decodes through
 * another's ABI (`abi` its verified bytecode twin's, or a proxy's
 * implementation's alone).
 */
export type VerifiedAbi = { name: string | null, abi: Abi | null, implementation?: { name: string, abi: Abi } | null }

/**
 * Where verified ABIs come from. `abiFor` takes a lowercase 0x-address and
 * answers null when nothing verified decodes it. With `blockNumber` a proxy's
 * implementation is the one it had at that block (a transaction's
 * interpretation); without it, the current one. `verifiedTable` holds the
 * fragments of every verified ABI (none when absent); `forget` drops what the
 * source keeps, after a verification.
 */
export type AbiSource = {
  abiFor (address: string, blockNumber?: number): Promise<VerifiedAbi | null>
  verifiedTable? (): Promise<SelectorTable>
  forget? (): void
}

/** An instance with no verified contract: every decoding falls back to the selector table. */
export const NO_VERIFIED_ABIS: AbiSource = { abiFor: async () => null }

export type DecoderOptions = { abiSource: AbiSource, maxCachedEntries?: number }

/** `blockNumber`, where given, is the block a proxy's implementation is read at (see AbiSource). */
export type Decoder = {
  /** The input of a call to `to` (null for a creation), or null when nothing decodes it. */
  decodeInput (to: string | null, input: string, blockNumber?: number): Promise<DecodedInput | null>
  /**
   * A page of calls, by position, at the latest block: each distinct target's
   * ABI is read once before any is decoded, so that the rows of a page calling
   * one contract cost one read, not one each while none is cached yet.
   */
  decodeInputs (calls: ReadonlyArray<{ to: string | null, input: string }>): Promise<Array<DecodedInput | null>>
  /** A log `address` emitted. */
  decodeLog (address: string, topics: ReadonlyArray<string | null>, data: string, blockNumber?: number): Promise<DecodedLog | null>
  /** The name the contract at `address` was verified under, or null: also for a proxy or bytecode twin that decodes by another's ABI. */
  contractName (address: string, blockNumber?: number): Promise<string | null>
  /** Forget cached decodings and what the ABI source keeps: after verification stored a contract. */
  clear (): void
}

/** Enough for a few pages of distinct inputs; each entry is a few hundred bytes. */
export const MAX_CACHED_DECODINGS = 10_000

/** A proxy's own ABI first, then its implementation's: the proxy's own functions win. */
function combinedAbi (verified: VerifiedAbi | null): Abi | null {
  const implementation = verified?.implementation?.abi
  const own = verified?.abi ?? null
  if (implementation === undefined) return own
  return own === null ? implementation : [...own, ...implementation]
}

export function createDecoder ({ abiSource, maxCachedEntries = MAX_CACHED_DECODINGS }: DecoderOptions): Decoder {
  const inputs = createLru<DecodedInput | null>(maxCachedEntries)
  const logs = createLru<DecodedLog | null>(maxCachedEntries)
  // Bumped by clear(): a decoding that read the source before is not kept after it.
  let clears = 0
  const abiOf = async (address: string, blockNumber: number | undefined) => combinedAbi(await abiSource.abiFor(address.toLowerCase(), blockNumber))
  const tableNow = async (): Promise<SelectorTable> => await (abiSource.verifiedTable?.() ?? EMPTY_TABLE)
  // A decoding at a block is kept apart from the current one: a proxy may have been upgraded since.
  const at = (blockNumber: number | undefined) => blockNumber === undefined ? '' : `${blockNumber}:`
  const decodable = (to: string | null, input: string): to is string => to !== null && input.length >= 10
  /** The decoding of a call whose target's ABI is `abi`, cached unless the ABIs were read before a clear() (`seen`). */
  function decodeWith (to: string, input: string, abi: Abi | null, table: SelectorTable, blockNumber: number | undefined, seen: number): DecodedInput | null {
    // The key holds the selector: it is the input's head.
    const key = at(blockNumber) + to.toLowerCase() + input
    const cached = inputs.get(key)
    if (cached !== undefined) return cached
    const decoded = decodeInput(input, abi, table)
    if (seen === clears) inputs.set(key, decoded)
    return decoded
  }
  return {
    async decodeInput (to, input, blockNumber) {
      if (!decodable(to, input)) return null
      const cached = inputs.get(at(blockNumber) + to.toLowerCase() + input)
      if (cached !== undefined) return cached
      const seen = clears
      const [abi, table] = await Promise.all([abiOf(to, blockNumber), tableNow()])
      return decodeWith(to, input, abi, table, blockNumber, seen)
    },
    async decodeInputs (calls) {
      const targets = new Set(calls.flatMap(({ to, input }) => decodable(to, input) ? [to.toLowerCase()] : []))
      const seen = clears
      const [abis, table] = await Promise.all([
        Promise.all([...targets].map(async (to) => [to, await abiOf(to, undefined)] as const)).then((entries) => new Map(entries)),
        tableNow()
      ])
      return calls.map(({ to, input }) => decodable(to, input) ? decodeWith(to, input, abis.get(to.toLowerCase()) ?? null, table, undefined, seen) : null)
    },
    async decodeLog (address, topics, data, blockNumber) {
      const key = at(blockNumber) + address.toLowerCase() + topics.join('') + data
      const cached = logs.get(key)
      if (cached !== undefined) return cached
      const seen = clears
      const [abi, table] = await Promise.all([abiOf(address, blockNumber), tableNow()])
      const decoded = decodeLog(topics, data, abi, table)
      if (seen === clears) logs.set(key, decoded)
      return decoded
    },
    async contractName (address, blockNumber) {
      return (await abiSource.abiFor(address.toLowerCase(), blockNumber))?.name ?? null
    },
    clear () {
      clears++
      inputs.clear()
      logs.clear()
      abiSource.forget?.()
    }
  }
}
