// Verification's store as the decoder's ABI source (core/decode): a verified
// contract's name and ABI, and for a proxy its implementation's, so a call to
// the proxy decodes by the implementation's functions.
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

export function createVerifiedAbiSource ({ db, queries, proxies, nowMs = Date.now }: VerifiedAbiSourceOptions): VerifiedAbiSource {
  const cache = createLru<{ value: VerifiedAbi | null, atMs: number }>(MAX_CACHED_ADDRESSES)

  async function implementationOf (address: string): Promise<VerifiedAbi['implementation']> {
    if (proxies === undefined) return null
    const contract = await queries.findContract(Buffer.from(address.slice(2), 'hex'))
    if (contract === undefined) return null
    // A proxy whose slots cannot be read now decodes by its own ABI alone.
    const proxy = await proxies.detect(address, contract.code.toString('hex')).catch(() => undefined)
    const implementation = proxy?.implementations[0]
    if (implementation === undefined) return null
    const verified = await findVerifiedContract(db, implementation)
    return verified === null ? null : { name: verified.name, abi: verified.abi as Abi }
  }

  async function read (address: string): Promise<VerifiedAbi | null> {
    const [verified, implementation] = await Promise.all([findVerifiedContract(db, address), implementationOf(address)])
    if (verified === null && implementation == null) return null
    // An unverified proxy is still named and decoded by its implementation.
    return verified === null ? { ...implementation!, implementation: null } : { name: verified.name, abi: verified.abi as Abi, implementation }
  }

  return {
    async abiFor (address) {
      const cached = cache.get(address)
      if (cached !== undefined && nowMs() - cached.atMs < ABI_SOURCE_TTL_MS) return cached.value
      const value = await read(address)
      cache.set(address, { value, atMs: nowMs() })
      return value
    },
    forget () {
      cache.clear()
    }
  }
}
