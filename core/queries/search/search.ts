// Search reads: exact lookups of what a query names (a block number, a block
// or transaction hash, an address), tokens whose name or symbol starts with
// it or whose words its words begin (as /api/v2/tokens?q= and Blockscout's
// search find them), and verified contracts by name alike. Tokens are paged
// by (holder_count desc, address), filtered past the cursor.
import type { Hex } from '../../rows.ts'
import { epochColumn, hexColumn } from '../sql/columns.ts'
import type { QueryDb } from '../sql/query-db.ts'
import { searchTerm, TOKEN_SEARCH_VECTOR } from '../tokens/tokens.ts'

/** `timestamp`: seconds since the epoch. */
export type BlockHit = { number: number, hash: Hex, timestamp: number }
export type TransactionHit = { hash: Hex, timestamp: number }
export type AddressHit = {
  hash: Hex
  is_contract: boolean
  /** The name its verified contract has; null when it has none. */
  verified_name: string | null
}
/** A verified contract whose name the query finds. */
export type ContractHit = { address: Hex, name: string }
export type TokenHit = {
  address: Hex
  name: string | null
  symbol: string | null
  type: string
  total_supply: string | null
  holder_count: number
  /** The name or symbol equals the query (case-insensitive): Blockscout ranks those higher. */
  exact: boolean
  /** Its contract is verified. */
  verified: boolean
}

export type TokenSearchCursor = { holderCount: number, address: Buffer }

/** What a query names exactly, in the order Blockscout lists such hits. */
export type ExactHit = ({ kind: 'block' } & BlockHit) | ({ kind: 'transaction' } & TransactionHit) | ({ kind: 'address' } & AddressHit) | ({ kind: 'token' } & TokenHit)

const BLOCK_NUMBER = /^[0-9]{1,19}$/
const HASH = /^0x[0-9a-fA-F]{64}$/
const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** The query as a block number, a 32-byte hash or an address, or undefined when it is none of them. */
export function classifyQuery (q: string): { number: number } | { hash: Buffer } | { address: Buffer } | undefined {
  if (BLOCK_NUMBER.test(q)) {
    const number = Number(q)
    return Number.isSafeInteger(number) ? { number } : undefined
  }
  if (HASH.test(q)) return { hash: Buffer.from(q.slice(2), 'hex') }
  if (ADDRESS.test(q)) return { address: Buffer.from(q.slice(2), 'hex') }
  return undefined
}

/** The block, transaction or address the query names, if the index has it. */
export async function findExactHits (db: QueryDb, q: string): Promise<ExactHit[]> {
  const key = classifyQuery(q)
  if (key === undefined) return []
  if ('address' in key) {
    // A token's address names the token as well as the address.
    const [token, address] = await Promise.all([findTokenHit(db, key.address), findAddressHit(db, key.address)])
    return [
      ...(token === undefined ? [] : [{ kind: 'token' as const, ...token }]),
      ...(address === undefined ? [] : [{ kind: 'address' as const, ...address }])
    ]
  }
  if ('number' in key) {
    const block = await findBlockHit(db, key)
    return block === undefined ? [] : [{ kind: 'block', ...block }]
  }
  const [transaction, block] = await Promise.all([findTransactionHit(db, key.hash), findBlockHit(db, key)])
  return [
    ...(transaction === undefined ? [] : [{ kind: 'transaction' as const, ...transaction }]),
    ...(block === undefined ? [] : [{ kind: 'block' as const, ...block }])
  ]
}

export async function findBlockHit (db: QueryDb, key: { number: number } | { hash: Buffer }): Promise<BlockHit | undefined> {
  const { rows } = await db.knex.raw(`select b.number::int as number, ${hexColumn('b.hash')} as hash, ${epochColumn('b.timestamp')} as timestamp
    from blocks b where ${'number' in key ? 'b.number = ?' : 'b.hash = ?'}`, ['number' in key ? key.number : key.hash])
  return rows[0]
}

export async function findTransactionHit (db: QueryDb, hash: Buffer): Promise<TransactionHit | undefined> {
  const { rows } = await db.knex.raw(`select ${hexColumn('t.hash')} as hash, ${epochColumn('b.timestamp')} as timestamp
    from transactions t join blocks b on b.number = t.block_number where t.hash = ?`, [hash])
  return rows[0]
}

/** An address the index has seen (it has an addresses row). */
export async function findAddressHit (db: QueryDb, hash: Buffer): Promise<AddressHit | undefined> {
  const { rows } = await db.knex.raw(`select ${hexColumn('a.hash')} as hash, a.contract_code is not null as is_contract, v.name as verified_name
    from addresses a left join verified_contracts v on v.address = a.hash where a.hash = ?`, [hash])
  return rows[0]
}

const IS_VERIFIED = 'exists (select 1 from verified_contracts v where v.address = k.address) as verified'

async function findTokenHit (db: QueryDb, address: Buffer): Promise<TokenHit | undefined> {
  const { rows } = await db.knex.raw(`select ${hexColumn('k.address')} as address, k.name, k.symbol, k.type, k.total_supply::text, k.holder_count, true as exact, ${IS_VERIFIED}
    from tokens k where k.address = ?`, [address])
  return rows[0]
}

/** LIKE treats %, _ and \ specially; the query is matched literally. */
const likePrefix = (text: string): string => text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`) + '%'

/**
 * Tokens whose name or symbol starts with `text` (any case), or whose
 * symbol's and name's words each word of `text` begins (the text search
 * /api/v2/tokens?q= makes, on the tokens_search index: "probe" finds
 * "Verified Probe"), most held first, after `cursor`; one more than `limit`.
 */
export async function searchTokens (db: QueryDb, { text, cursor, limit }: { text: string, cursor?: TokenSearchCursor, limit: number }): Promise<TokenHit[]> {
  // PostgreSQL text cannot hold a NUL, so no name or symbol has one (and the query could not be sent).
  if (text.includes('\u0000')) return []
  const prefix = likePrefix(text)
  const term = searchTerm(text)
  const words = term === undefined ? '' : `or ${TOKEN_SEARCH_VECTOR} @@ to_tsquery('english', ?)`
  const after = cursor === undefined ? '' : 'and (k.holder_count < ? or (k.holder_count = ? and k.address > ?))'
  const bindings = cursor === undefined ? [] : [cursor.holderCount, cursor.holderCount, cursor.address]
  const { rows } = await db.knex.raw(`
    select ${hexColumn('k.address')} as address, k.name, k.symbol, k.type, k.total_supply::text, k.holder_count,
      coalesce(lower(k.name) = lower(?), false) or coalesce(lower(k.symbol) = lower(?), false) as exact, ${IS_VERIFIED}
    from tokens k
    where (lower(k.name) like ? or lower(k.symbol) like ? ${words}) ${after}
    order by k.holder_count desc, k.address limit ?`, [text, text, prefix, prefix, ...(term === undefined ? [] : [term]), ...bindings, limit + 1])
  return rows
}

/**
 * Verified contracts whose name starts with `text` (any case) or whose name's
 * words each word of `text` begins (Blockscout's contract search), by name;
 * at most `limit`. Verified contracts are few (verifications, not chain rows):
 * no index is kept for this.
 */
export async function searchVerifiedContracts (db: QueryDb, { text, limit }: { text: string, limit: number }): Promise<ContractHit[]> {
  if (text.includes('\u0000')) return []
  const term = searchTerm(text)
  const { rows } = await db.knex.raw(`
    select ${hexColumn('v.address')} as address, v.name from verified_contracts v
    where lower(v.name) like ? ${term === undefined ? '' : "or to_tsvector('english', v.name) @@ to_tsquery('english', ?)"}
    order by v.name, v.address limit ?`, [likePrefix(text), ...(term === undefined ? [] : [term]), limit])
  return rows
}
