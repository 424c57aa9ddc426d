// Verification's store as the decoder's ABI source (core/decode): what
// decodes an address's calls and logs, in Blockscout's order: its own
// verified ABI, else the ABI of a verified contract with the same code (a
// bytecode twin: a factory's child, a second deployment), with a proxy's
// implementation's ABI after it; and the table of every verified ABI, for
// contracts nothing verified decodes.
//
// Most addresses a page decodes are not verified. The verified addresses and
// code hashes are kept in memory (one query, read again at most every
// ABI_SOURCE_TTL_MS and at once after `forget`: a verification on any
// instance, heard through PostgreSQL), so that such an address costs its code
// (for its hash and proxy slots) and no verified row, and, while nothing at
// all is verified, nothing. The table is read once and then extended by the
// rows verified since (their ids are increasing).
import type { Knex } from 'knex'
import { createAbiTable, type AbiSource, type VerifiedAbi, type Abi, type SelectorTable } from '../decode/index.ts'
import { createLru } from '../decode/lru.ts'
import { findVerifiedContract } from './store.ts'
import { runtimeCodeHash } from './verify.ts'
import type { ProxyDetector } from './proxy.ts'

/**
 * How long an answer is kept. A verification anywhere clears the cache at
 * once (`forget`); an upgraded proxy, or a verification whose notice was
 * missed, shows after at most this long.
 */
export const ABI_SOURCE_TTL_MS = 10_000
const MAX_CACHED_ADDRESSES = 5_000

export type VerifiedAbiSource = AbiSource & Required<Pick<AbiSource, 'verifiedTable' | 'forget'>>

export type VerifiedAbiSourceOptions = { db: Knex, proxies?: ProxyDetector, nowMs?: () => number }

type Verified = {
  addresses: Set<string>
  /** Runtime code hash (hex) -> the verified contract its twins decode by: full matches first, then the oldest, as the detail page's twin. */
  twins: Map<string, string>
  /** The newest row's id: the table is complete through it. */
  lastId: number
}

async function readVerified (db: Knex): Promise<Verified> {
  const { rows } = await db.raw(`select '0x' || encode(address, 'hex') as address, encode(runtime_code_hash, 'hex') as code_hash, id::float8 as id
    from verified_contracts order by match_type = 'full' desc, id`)
  const verified: Verified = { addresses: new Set(), twins: new Map(), lastId: 0 }
  for (const row of rows as Array<{ address: string, code_hash: string, id: number }>) {
    verified.addresses.add(row.address)
    if (!verified.twins.has(row.code_hash)) verified.twins.set(row.code_hash, row.address)
    verified.lastId = Math.max(verified.lastId, row.id)
  }
  return verified
}

/** The deployed code (hex, no 0x) the index holds for `address`, or undefined. */
async function readCode (db: Knex, address: string): Promise<string | undefined> {
  const { rows } = await db.raw('select encode(contract_code, \'hex\') as code from addresses where hash = ? and contract_code is not null', [Buffer.from(address.slice(2), 'hex')])
  return rows[0]?.code
}

export function createVerifiedAbiSource ({ db, proxies, nowMs = Date.now }: VerifiedAbiSourceOptions): VerifiedAbiSource {
  // An answer in the making is kept too: the callers asking one address together (a page's
  // calls to one contract, a summary's logs of one token) share its reads.
  const cache = createLru<{ value: Promise<VerifiedAbi | null>, atMs: number }>(MAX_CACHED_ADDRESSES)
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

  /** The verified contract at `address`, else its verified twin's, with `own` telling which. */
  async function verifiedOrTwin (address: string, code: string | undefined, verified: Verified): Promise<{ name: string, abi: Abi, own: boolean } | null> {
    if (verified.addresses.has(address)) {
      const row = await findVerifiedContract(db, address)
      if (row !== null) return { name: row.name, abi: row.abi as Abi, own: true }
    }
    const twin = code === undefined ? undefined : verified.twins.get(runtimeCodeHash(code).toString('hex'))
    const row = twin === undefined || twin === address ? null : await findVerifiedContract(db, twin)
    return row === null ? null : { name: row.name, abi: row.abi as Abi, own: false }
  }

  async function implementationOf (address: string, code: string, verified: Verified, blockNumber: number | undefined): Promise<VerifiedAbi['implementation']> {
    // A proxy whose slots cannot be read now decodes by its own ABI alone.
    const proxy = await proxies?.detect(address, code, blockNumber).catch(() => undefined)
    const implementation = proxy?.implementations[0]?.toLowerCase()
    if (implementation === undefined || implementation === address) return null
    // An implementation that is itself a twin (a clone of a factory-made one) decodes by its verified twin's ABI.
    const found = await verifiedOrTwin(implementation, verified.addresses.has(implementation) ? undefined : await readCode(db, implementation), verified)
    return found === null ? null : { name: found.name, abi: found.abi }
  }

  async function read (address: string, verified: Verified, blockNumber: number | undefined): Promise<VerifiedAbi | null> {
    if (verified.addresses.size === 0) return null
    const code = await readCode(db, address)
    const [found, implementation] = await Promise.all([
      verifiedOrTwin(address, code, verified),
      code === undefined ? null : implementationOf(address, code, verified, blockNumber)
    ])
    if (found === null && implementation == null) return null
    // Only its own verification names an address: a proxy or a twin decodes by another's ABI without taking its name.
    return { name: found?.own === true ? found.name : null, abi: found?.abi ?? null, implementation }
  }

  return {
    async abiFor (address, blockNumber) {
      // A proxy's implementation at a block is kept apart from its current one.
      const key = blockNumber === undefined ? address : `${address}@${blockNumber}`
      const cached = cache.get(key)
      if (cached !== undefined && nowMs() - cached.atMs < ABI_SOURCE_TTL_MS) return await cached.value
      // forget() empties the cache: an answer read across it is not kept.
      const entry = { value: Promise.resolve<VerifiedAbi | null>(null), atMs: nowMs() }
      entry.value = verifiedNow().then(async ({ verified, atMs }) => {
        // As old as the set it was read by: a verification whose notice is lost shows within ABI_SOURCE_TTL_MS still.
        entry.atMs = atMs
        return await read(address, verified, blockNumber)
      })
      // A failed read is not kept: the next caller reads again.
      entry.value.catch(() => { entry.atMs = Number.NEGATIVE_INFINITY })
      cache.set(key, entry)
      return await entry.value
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
