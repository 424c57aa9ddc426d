// Verification's store as the decoder's ABI source (core/decode): a verified
// contract's name and ABI, and for a proxy its implementation's, so a call to
// the proxy decodes by the implementation's functions (an unverified proxy
// keeps no name of its implementation's).
//
// Most addresses a page decodes are not verified. The set of verified
// addresses is kept in memory (one query, read again at most every
// ABI_SOURCE_TTL_MS and at once after a verification here), so that such an
// address costs no query for its verified row, and, while nothing at all is
// verified, no proxy detection either (no implementation can be verified).
import type { Knex } from 'knex'
import type { AbiSource, VerifiedAbi, Abi } from '../decode/index.ts'
import { createLru } from '../decode/lru.ts'
import { findVerifiedContract } from './store.ts'
import type { ProxyDetector } from './proxy.ts'
import type { Queries } from '../queries/index.ts'

/**
 * How long an answer is kept. Verification on this instance clears the cache
 * at once (`forget`); one on another instance, or an upgraded proxy, shows
 * here after at most this long.
 */
export const ABI_SOURCE_TTL_MS = 10_000
const MAX_CACHED_ADDRESSES = 5_000

export type VerifiedAbiSource = AbiSource & {
  /** Drops every cached answer: a new verification may name an address or a proxy's implementation. */
  forget (): void
}

export type VerifiedAbiSourceOptions = { db: Knex, queries: Queries, proxies?: ProxyDetector, nowMs?: () => number }

/** Every verified address, lowercase 0x-hex: 20 bytes a contract. */
async function readVerifiedAddresses (db: Knex): Promise<Set<string>> {
  const { rows } = await db.raw('select \'0x\' || encode(address, \'hex\') as address from verified_contracts')
  return new Set(rows.map((r: { address: string }) => r.address))
}

export function createVerifiedAbiSource ({ db, queries, proxies, nowMs = Date.now }: VerifiedAbiSourceOptions): VerifiedAbiSource {
  const cache = createLru<{ value: VerifiedAbi | null, atMs: number }>(MAX_CACHED_ADDRESSES)
  let verifiedSet: { addresses: Promise<Set<string>>, atMs: number } | undefined

  /** One read at a time, shared by every caller meanwhile; a failed read is not kept. */
  async function verifiedAddresses (): Promise<{ set: Set<string>, atMs: number }> {
    if (verifiedSet === undefined || nowMs() - verifiedSet.atMs >= ABI_SOURCE_TTL_MS) {
      const entry = { addresses: readVerifiedAddresses(db), atMs: nowMs() }
      verifiedSet = entry
      entry.addresses.catch(() => { if (verifiedSet === entry) verifiedSet = undefined })
    }
    const { addresses, atMs } = verifiedSet
    return { set: await addresses, atMs }
  }

  async function implementationOf (address: string, verified: Set<string>, blockNumber: number | undefined): Promise<VerifiedAbi['implementation']> {
    if (proxies === undefined) return null
    const contract = await queries.findContract(Buffer.from(address.slice(2), 'hex'))
    if (contract === undefined) return null
    // A proxy whose slots cannot be read now decodes by its own ABI alone.
    const proxy = await proxies.detect(address, contract.code.toString('hex'), blockNumber).catch(() => undefined)
    const implementation = proxy?.implementations[0]?.toLowerCase()
    if (implementation === undefined || !verified.has(implementation)) return null
    const row = await findVerifiedContract(db, implementation)
    return row === null ? null : { name: row.name, abi: row.abi as Abi }
  }

  async function read (address: string, set: Set<string>, blockNumber: number | undefined): Promise<VerifiedAbi | null> {
    if (set.size === 0) return null
    const [verified, implementation] = await Promise.all([set.has(address) ? findVerifiedContract(db, address) : null, implementationOf(address, set, blockNumber)])
    if (verified === null && implementation == null) return null
    // An unverified proxy decodes by its implementation's ABI without taking its name: it is not verified itself.
    return verified === null ? { name: null, abi: null, implementation } : { name: verified.name, abi: verified.abi as Abi, implementation }
  }

  return {
    async abiFor (address, blockNumber) {
      // A proxy's implementation at a block is kept apart from its current one.
      const key = blockNumber === undefined ? address : `${address}@${blockNumber}`
      const cached = cache.get(key)
      if (cached !== undefined && nowMs() - cached.atMs < ABI_SOURCE_TTL_MS) return cached.value
      const { set, atMs } = await verifiedAddresses()
      const value = await read(address, set, blockNumber)
      // As old as the set it was read by: a verification elsewhere shows within ABI_SOURCE_TTL_MS still.
      cache.set(key, { value, atMs })
      return value
    },
    forget () {
      cache.clear()
      verifiedSet = undefined
    }
  }
}
