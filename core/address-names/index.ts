// What the explorer calls an address, as Blockscout's address objects show it:
// `name` is the verified contract's name (Blockscout's primary address name),
// else its token's name (the name Blockscout records when it reads a token's
// metadata); `is_verified` says the address itself was verified (a bytecode
// twin is not: Blockscout shows it verified on its contract page only); the
// public tag is the one an operator set (`npm run ops -- tag`).
//
// A page reads the names of all its addresses at once, in one query for
// those not kept. Names are kept KEPT_MS: a verification or a tag, here, on
// another instance or by the ops command (notify.ts), forgets them at once; a
// token's name read by the indexer shows within that time.
import type { Logger } from '../logger.ts'
import type { ChannelListener } from '../db/listen.ts'
import type { AddressNameRow } from '../queries/addresses/address-names.ts'
import { createLru } from '../decode/lru.ts'
import { hearNameChanges } from './notify.ts'

export { announceNameChange } from './notify.ts'

export type AddressName = Readonly<{ name: string | null, isVerified: boolean, tag: string | null }>
/** The names of a page's addresses, by lowercase 0x-hex: an address without one is absent. */
export type AddressNames = ReadonlyMap<string, AddressName>
export const NO_NAMES: AddressNames = new Map()

export type AddressNameReader = {
  /** The names of those among `addresses` (0x-hex; nulls skipped) that have one. */
  read (addresses: Iterable<string | null>): Promise<AddressNames>
  /** Forgets every kept name and tells the listeners: a verification or a tag changed what an address is called. */
  forget (): void
  /** Calls `listener` after each forget(); returns the unsubscribe. */
  onChange (listener: () => void): () => void
  close (): Promise<void>
}

export type AddressNameReaderOptions = {
  queries: { readAddressNames (addresses: readonly Buffer[]): Promise<AddressNameRow[]> }
  /** Hear other processes' changes (notify.ts); without it, what they change shows after KEPT_MS. */
  listen?: { databaseUrl: string, log: Logger }
  nowMs?: () => number
}

/** As long as the ABI source and the head-keyed answers keep what they read (core/verify/abi-source.ts, core/http-cache). */
export const KEPT_MS = 10_000
/** Names kept at most: a few pages' worth of addresses, named or not, at some 100 bytes each. */
const MAX_KEPT = 50_000

const keyOf = (address: string): string => address.toLowerCase()

function nameOf (row: AddressNameRow): AddressName {
  return Object.freeze({ name: row.verified_name ?? row.token_name, isVerified: row.verified_name !== null, tag: row.tag })
}

export async function createAddressNameReader ({ queries, listen, nowMs = Date.now }: AddressNameReaderOptions): Promise<AddressNameReader> {
  // null: read and found unnamed, which most addresses are.
  const kept = createLru<{ name: AddressName | null, atMs: number }>(MAX_KEPT)
  const listeners = new Set<() => void>()
  // Bumped by every forget(): a read that overlapped one keeps nothing it read.
  let generation = 0
  function forget (): void {
    generation++
    kept.clear()
    for (const l of listeners) l()
  }

  const listener: ChannelListener | undefined = listen === undefined ? undefined : await hearNameChanges(listen.databaseUrl, listen.log, forget)

  return {
    async read (addresses) {
      const names = new Map<string, AddressName>()
      const missing = new Set<string>()
      const now = nowMs()
      for (const address of addresses) {
        if (address === null) continue
        const key = keyOf(address)
        const entry = kept.get(key)
        if (entry === undefined || now - entry.atMs >= KEPT_MS) missing.add(key)
        else if (entry.name !== null) names.set(key, entry.name)
      }
      if (missing.size === 0) return names
      const at = generation
      const rows = await queries.readAddressNames([...missing].map((key) => Buffer.from(key.slice(2), 'hex')))
      for (const row of rows) names.set(row.address, nameOf(row))
      if (at === generation) for (const key of missing) kept.set(key, { name: names.get(key) ?? null, atMs: now })
      return names
    },
    forget,
    onChange (l) {
      listeners.add(l)
      return () => listeners.delete(l)
    },
    async close () {
      await listener?.close()
    }
  }
}
