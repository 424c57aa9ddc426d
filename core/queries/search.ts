// Search reads: exact lookups of what a query names (a block number, a block
// or transaction hash, an address) and tokens whose name or symbol starts
// with it. Tokens are paged by (holder_count desc, address): each page is
// the prefix indexes on lower(name) and lower(symbol), filtered past the
// cursor, so a later page costs what the first does.
import type { QueryDb } from './query-db.ts'

export type BlockHit = { number: number, hash: Buffer, timestamp: Date }
export type TransactionHit = { hash: Buffer, timestamp: Date }
export type AddressHit = { hash: Buffer, is_contract: boolean }
export type TokenHit = {
  address: Buffer
  name: string | null
  symbol: string | null
  type: string
  total_supply: string | null
  holder_count: number
  /** The name or symbol equals the query (case-insensitive): Blockscout ranks those higher. */
  exact: boolean
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
  const row = await db.knex('blocks').where('number' in key ? { number: key.number } : { hash: key.hash }).first('number', 'hash', 'timestamp')
  return row === undefined ? undefined : { number: Number(row.number), hash: row.hash, timestamp: row.timestamp }
}

export async function findTransactionHit (db: QueryDb, hash: Buffer): Promise<TransactionHit | undefined> {
  const { rows } = await db.knex.raw('select t.hash, b.timestamp from transactions t join blocks b on b.number = t.block_number where t.hash = ?', [hash])
  return rows[0]
}

/** An address the index has seen (it has an addresses row). */
export async function findAddressHit (db: QueryDb, hash: Buffer): Promise<AddressHit | undefined> {
  const { rows } = await db.knex.raw('select hash, contract_code is not null as is_contract from addresses where hash = ?', [hash])
  return rows[0]
}

async function findTokenHit (db: QueryDb, address: Buffer): Promise<TokenHit | undefined> {
  const { rows } = await db.knex.raw('select address, name, symbol, type, total_supply::text, holder_count, true as exact from tokens where address = ?', [address])
  return rows[0]
}

/** LIKE treats %, _ and \ specially; the query is matched literally. */
const likePrefix = (text: string): string => text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`) + '%'

/** Tokens whose name or symbol starts with `text` (any case), most held first, after `cursor`; one more than `limit`. */
export async function searchTokens (db: QueryDb, { text, cursor, limit }: { text: string, cursor?: TokenSearchCursor, limit: number }): Promise<TokenHit[]> {
  // PostgreSQL text cannot hold a NUL, so no name or symbol has one (and the query could not be sent).
  if (text.includes('\u0000')) return []
  const prefix = likePrefix(text)
  const after = cursor === undefined ? '' : 'and (holder_count < ? or (holder_count = ? and address > ?))'
  const bindings = cursor === undefined ? [] : [cursor.holderCount, cursor.holderCount, cursor.address]
  const { rows } = await db.knex.raw(`
    select address, name, symbol, type, total_supply::text, holder_count,
      coalesce(lower(name) = lower(?), false) or coalesce(lower(symbol) = lower(?), false) as exact
    from tokens
    where (lower(name) like ? or lower(symbol) like ?) ${after}
    order by holder_count desc, address limit ?`, [text, text, prefix, prefix, ...bindings, limit + 1])
  return rows
}
