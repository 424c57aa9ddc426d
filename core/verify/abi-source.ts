// Verification's store as the decoder's ABI source (core/decode): a verified
// contract's name and ABI, and for a proxy its implementation's, so a call to
// the proxy decodes by the implementation's functions (an unverified proxy
// keeps no name of its implementation's); and the table of every verified
// ABI, for contracts nothing verified decodes.
//
// Most addresses a page decodes are not verified. The set of verified
// addresses is kept in memory (one query, read again at most every
// ABI_SOURCE_TTL_MS and at once after a verification here), so that such an
// address costs no query for its verified row, and, while nothing at all is
// verified, no proxy detection either (no implementation can be verified).
// The table is read once and then extended by the rows verified since (their
// ids are increasing).
import type { Knex } from 'knex'
import { createAbiTable, type AbiSource, type VerifiedAbi, type Abi, type SelectorTable } from '../decode/index.ts'
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

export type VerifiedAbiSource = AbiSource & Required<Pick<AbiSource, 'verifiedTable'>> & {
  /** Drops every cached answer: a new verification may name an address or a proxy's implementation. */
  forget (): void
}

export type VerifiedAbiSourceOptions = { db: Knex, queries: Queries, proxies?: ProxyDetector, nowMs?: () => number }

type Verified = {
  /** Every verified address, lowercase 0x-hex: 20 bytes a contract. */
  addresses: Set<string>
  /** The newest row's id: the table is complete through it. */
  lastId: number
}

async function readVerified (db: Knex): Promise<Verified> {
  const { rows } = await db.raw('select \'0x\' || encode(address, \'hex\') as address, id::float8 as id from verified_contracts')
  return {
    addresses: new Set(rows.map((r: { address: string }) => r.address)),
    lastId: rows.reduce((last: number, r: { id: number }) => Math.max(last, r.id), 0)
  }
}

export function createVerifiedAbiSource ({ db, queries, proxies, nowMs = Date.now }: VerifiedAbiSourceOptions): VerifiedAbiSource {
  const cache = createLru<{ value: VerifiedAbi | null, atMs: number }>(MAX_CACHED_ADDRESSES)
  let verifiedSet: { verified: Promise<Verified>, atMs: number } | undefined
  const table = createAbiTable()
  let tableThrough = 0
  let extending: Promise<void> | undefined

  /** One read at a time, shared by every caller meanwhile; a failed read is not kept. */
  async function verifiedNow (): Promise<{ verified: Verified, atMs: number }> {
    if (verifiedSet === undefined || nowMs() - verifiedSet.atMs >= ABI_SOURCE_TTL_MS) {
      const entry = { verified: readVerified(db), atMs: nowMs() }
      verifiedSet = entry
      entry.verified.catch(() => { if (verifiedSet === entry) verifiedSet = undefined })
    }
    const { verified, atMs } = verifiedSet
    return { verified: await verified, atMs }
  }

  /** Adds the ABIs verified after those already in the table, in the order they were verified: one extension at a time. */
  async function extendTable (through: number): Promise<void> {
    while (tableThrough < through) {
      extending ??= (async () => {
        const { rows } = await db.raw('select id::float8 as id, abi from verified_contracts where id > ? order by id', [tableThrough])
        for (const row of rows as Array<{ id: number, abi: Abi }>) {
          table.add(row.abi)
          tableThrough = row.id
        }
        // Rows are never deleted: an id not found is one whose insert was rolled back.
        tableThrough = Math.max(tableThrough, through)
      })().finally(() => { extending = undefined })
      await extending
    }
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
      const { verified, atMs } = await verifiedNow()
      const value = await read(address, verified.addresses, blockNumber)
      // As old as the set it was read by: a verification elsewhere shows within ABI_SOURCE_TTL_MS still.
      cache.set(key, { value, atMs })
      return value
    },
    async verifiedTable (): Promise<SelectorTable> {
      const { verified } = await verifiedNow()
      await extendTable(verified.lastId)
      return table
    },
    forget () {
      cache.clear()
      verifiedSet = undefined
    }
  }
}
