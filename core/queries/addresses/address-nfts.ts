// An address's NFTs as Blockscout lists them: ERC-721 ids first, then
// ERC-1155 and ERC-404 ids, each type by collection address ascending and id
// descending (/addresses/{hash}/nft); or one item per collection with up to
// nine of its ids (/nft/collections). Collections and ERC-1155 ids come off
// token_holdings_holder_type (migration 8) in that order; ERC-721 ids, which
// token_holdings counts per collection (token_id -1), off token_balances'
// primary key. A cursor is a range of those indexes: no page reads the ones
// before it.
import type { Knex } from 'knex'
import { PAGE_SIZE } from '../sql/page-size.ts'
import { OWNER_COLUMNS, ownerJoin, type InstanceRecord } from '../tokens/token-instances.ts'
import { tokenFromJson, tokenJoin, type TokenJson, type TokenRecord } from '../tokens/tokens.ts'
import type { QueryDb } from '../sql/query-db.ts'

/** Blockscout's order of the NFT types in these lists. */
export const NFT_TYPES = ['ERC-721', 'ERC-1155', 'ERC-404']
/** Ids shown with each collection, as Blockscout preloads them. */
export const COLLECTION_INSTANCES = 9

export type HeldInstance = InstanceRecord & { value: string }
export type NftRecord = { token: TokenRecord, instance: HeldInstance }
export type NftCursor = { tokenAddress: Buffer, tokenId: string, type: string }
export type CollectionRecord = { token: TokenRecord, amount: string, instances: HeldInstance[] }
export type CollectionCursor = { tokenAddress: Buffer, type: string }

// Below every address: the first type after the cursor's is read from its start.
const BEFORE_ALL = Buffer.alloc(0)

/**
 * The types to read, in order, and the cursor of the first: from the cursor's
 * type on (its own rows after the cursor), or all of them without one (or with
 * a cursor whose type is not asked for, which reads a first page).
 */
function typesFrom<C extends { type: string }> (asked: string[] | undefined, cursor: C | undefined): Array<{ type: string, cursor: C | undefined }> {
  const types = NFT_TYPES.filter((type) => asked === undefined || asked.length === 0 || asked.includes(type))
  const start = cursor === undefined ? -1 : types.indexOf(cursor.type)
  return start === -1
    ? types.map((type) => ({ type, cursor: undefined }))
    : types.slice(start).map((type, i) => ({ type, cursor: i === 0 ? cursor : undefined }))
}

/** Reads type after type, each from its cursor, until a page and one more are found. */
async function readAcrossTypes<C extends { type: string }, Row> (types: string[] | undefined, cursor: C | undefined,
  read: (type: string, cursor: C | undefined, limit: number) => Promise<Row[]>): Promise<Row[]> {
  const found: Row[] = []
  for (const part of typesFrom(types, cursor)) {
    const limit = PAGE_SIZE + 1 - found.length
    if (limit <= 0) break
    found.push(...await read(part.type, part.cursor, limit))
  }
  return found
}

/** One type's ids held, after `cursor`, `limit` at most: rows (token_address, token_id, value). */
function heldIdsSql (type: string, holder: Buffer, cursor: NftCursor | undefined, limit: number): { sql: string, bindings: Knex.RawBinding[] } {
  const from = cursor?.tokenAddress ?? BEFORE_ALL
  // Without a cursor, the collection part reads nothing (no address is empty).
  const below = cursor?.tokenId ?? '0'
  if (type === 'ERC-721') {
    // The cursor's collection below its id, then the collections after it from their highest id:
    // each part a range of an index, so a deep page reads no row of the pages before it.
    return {
      sql: `(select b.token_address, b.token_id, b.value from token_balances b
          where b.token_address = ? and b.holder = ? and b.token_id >= 0 and b.token_id < ?::numeric and b.value > 0
            and exists (select 1 from token_holdings h where h.holder = b.holder and h.token_type = 'ERC-721'
              and h.token_address = b.token_address and h.token_id = -1 and h.value > 0)
          order by b.token_id desc limit ${limit})
        union all
        (select i.* from (
          select h.token_address from token_holdings h
          where h.holder = ? and h.token_type = 'ERC-721' and h.value > 0 and h.token_id = -1 and h.token_address > ?
          order by h.token_address
        ) c cross join lateral (
          select b.token_address, b.token_id, b.value from token_balances b
          where b.token_address = c.token_address and b.holder = ? and b.token_id >= 0 and b.value > 0
          order by b.token_id desc limit ${limit}
        ) i limit ${limit})`,
      bindings: [from, holder, below, holder, from, holder]
    }
  }
  const held = 'select token_address, token_id, value from token_holdings where holder = ? and token_type = ? and value > 0 and token_id >= 0'
  return {
    sql: `(${held} and token_address = ? and token_id < ?::numeric order by token_id desc limit ${limit})
      union all
      (${held} and token_address > ? order by token_address, token_id desc limit ${limit})`,
    bindings: [holder, type, from, below, holder, type, from]
  }
}

/** A page of the address's NFTs (one more than a page when another follows). */
export async function listAddressNfts (db: QueryDb, { holder, types, cursor }: { holder: Buffer, types?: string[], cursor?: NftCursor }): Promise<NftRecord[]> {
  return await readAcrossTypes(types, cursor, async (type, from, limit) => {
    const ids = heldIdsSql(type, holder, from, limit)
    const { rows } = await db.knex.raw(`
      select ${OWNER_COLUMNS}, i.value::text as value, row_to_json(t) as token
      from (${ids.sql}) i ${tokenJoin('i.token_address')} ${ownerJoin('i.token_address')}
      order by i.token_address, i.token_id desc`, ids.bindings)
    return (rows as Array<HeldInstance & { token: TokenJson }>).map(({ token, ...instance }) => ({ token: tokenFromJson(token), instance }))
  })
}

/** One type's collections after `cursor`: rows (token_address, amount), amount being ids held (ERC-721) or distinct ids (others). */
function collectionsSql (type: string, holder: Buffer, cursor: CollectionCursor | undefined, limit: number): { sql: string, bindings: Knex.RawBinding[] } {
  const from = cursor?.tokenAddress ?? BEFORE_ALL
  if (type === 'ERC-721') {
    return {
      sql: `select token_address, value as amount from token_holdings
        where holder = ? and token_type = 'ERC-721' and value > 0 and token_id = -1 and token_address > ?
        order by token_address limit ${limit}`,
      bindings: [holder, from]
    }
  }
  return {
    sql: `select token_address, count(*) as amount from token_holdings
      where holder = ? and token_type = ? and value > 0 and token_id >= 0 and token_address > ?
      group by token_address order by token_address limit ${limit}`,
    bindings: [holder, type, from]
  }
}

/** A page of the address's NFT collections, each with its highest ids (one more than a page when another follows). */
export async function listAddressNftCollections (db: QueryDb, { holder, types, cursor }: { holder: Buffer, types?: string[], cursor?: CollectionCursor }): Promise<CollectionRecord[]> {
  return await readAcrossTypes(types, cursor, async (type, from, limit) => {
    const collections = collectionsSql(type, holder, from, limit)
    const { rows } = await db.knex.raw(`
      select c.amount::text as amount, row_to_json(t) as token, coalesce(x.instances, '[]') as instances
      from (${collections.sql}) c ${tokenJoin('c.token_address')}
      cross join lateral (
        select json_agg(json_build_object('token_id', i.token_id::text, 'value', i.value::text,
          'owner', '0x' || encode(o.holder, 'hex'), 'owner_is_contract', coalesce(a.contract_code is not null, false),
          'supply', coalesce(o.supply, 0)::text, 'metadata', m.metadata) order by i.token_id desc) as instances
        from (
          select b.token_id, b.value from token_balances b
          where b.token_address = c.token_address and b.holder = ? and b.token_id >= 0 and b.value > 0
          order by b.token_id desc limit ${COLLECTION_INSTANCES}
        ) i ${ownerJoin('c.token_address')}
      ) x
      order by c.token_address`, [...collections.bindings, holder])
    return (rows as Array<{ amount: string, token: TokenJson, instances: HeldInstance[] }>).map((row) => ({
      token: tokenFromJson(row.token),
      amount: row.amount,
      instances: row.instances
    }))
  })
}
