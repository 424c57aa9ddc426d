// NFT instances: every id a token's transfers named, newest id first, with
// its owner from token_balances. Blockscout keeps a row per instance; here
// the ids are read from token_transfers_token_id by a loose index scan (one
// index probe per id), so a deep page costs what the first does.
import type { Hex } from '../../rows.ts'
import { hexColumn } from '../sql/columns.ts'
import { PAGE_SIZE } from '../sql/page-size.ts'
import type { HolderRecord } from './tokens.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type InstanceRecord = {
  token_id: string
  /** The only holder of the id, when it has exactly one and holds one unit of it. */
  owner: Hex | null
  owner_is_contract: boolean
  /** Units of the id held in all (0 once an ERC-721 id is burnt). */
  supply: string
  /** The id's metadata document, once read (core/nft-metadata/). */
  metadata: Record<string, unknown> | null
}

/** An InstanceRecord's columns from a row `i` (with its token_id) and ownerJoin's `o`, `a` and `m`. */
export const OWNER_COLUMNS = `
  i.token_id::text,
  ${hexColumn('o.holder')} as owner, coalesce(a.contract_code is not null, false) as owner_is_contract, coalesce(o.supply, 0)::text as supply,
  m.metadata`

/**
 * The holders of id `i.token_id` of the token at `token` (an SQL expression
 * or a ? binding, named once), and the id's metadata as last read.
 */
export const ownerJoin = (token: string): string => `
  cross join lateral (select ${token}::bytea as address) k
  left join lateral (
    select case when count(*) = 1 then (array_agg(b.holder))[1] end as holder, sum(b.value) as supply
    -- Ids are never negative (-1 is a fungible balance): said here, token_balances_token_id (partial) serves the probe.
    from token_balances b where b.token_address = k.address and b.token_id = i.token_id and b.token_id >= 0
  ) o on true
  left join addresses a on a.hash = o.holder
  left join token_instance_metadata m on m.token_address = k.address and m.token_id = i.token_id`
const OWNER_JOIN = ownerJoin('?')

/** Instances below `before` (all when undefined), highest id first; one more than a page. */
export async function listTokenInstances (db: QueryDb, { token, before }: { token: Buffer, before?: string }): Promise<InstanceRecord[]> {
  const below = before === undefined ? '' : 'and token_id < ?::numeric'
  const { rows } = await db.knex.raw(`
    with recursive ids (token_id) as (
      (select token_id from token_transfers where token_address = ? and token_id is not null ${below} order by token_id desc limit 1)
      union all
      select (select t.token_id from token_transfers t where t.token_address = ? and t.token_id is not null and t.token_id < ids.token_id
        order by t.token_id desc limit 1)
      from ids where ids.token_id is not null
    )
    select ${OWNER_COLUMNS} from (select token_id from ids where token_id is not null limit ${PAGE_SIZE + 1}) i ${OWNER_JOIN}
    order by i.token_id desc`, [token, ...(before === undefined ? [] : [before]), token, token])
  return rows
}

/** The instances `holder` holds now, highest id first (the primary key of token_balances in reverse). */
export async function listHolderInstances (db: QueryDb, { token, holder, before }: { token: Buffer, holder: Buffer, before?: string }): Promise<InstanceRecord[]> {
  const below = before === undefined ? '' : 'and token_id < ?::numeric'
  const { rows } = await db.knex.raw(`
    select ${OWNER_COLUMNS} from (
      select token_id from token_balances where token_address = ? and holder = ? and token_id >= 0 and value > 0 ${below}
      order by token_id desc limit ${PAGE_SIZE + 1}
    ) i ${OWNER_JOIN}
    order by i.token_id desc`, [token, holder, ...(before === undefined ? [] : [before]), token])
  return rows
}

/** One instance, or undefined when no transfer of the token named the id. */
export async function findTokenInstance (db: QueryDb, { token, tokenId }: { token: Buffer, tokenId: string }): Promise<InstanceRecord | undefined> {
  const { rows } = await db.knex.raw(`
    select ${OWNER_COLUMNS} from (
      select token_id from token_transfers where token_address = ? and token_id = ?::numeric limit 1
    ) i ${OWNER_JOIN}`, [token, tokenId, token])
  return rows[0]
}

/** The holders of one id, most units first, after (value, holder); one more than a page. */
export async function listInstanceHolders (db: QueryDb, { token, tokenId, cursor }: { token: Buffer, tokenId: string, cursor?: { value: string, holder: Buffer } }): Promise<HolderRecord[]> {
  const after = cursor === undefined ? '' : 'and (b.value, b.holder) < (?::numeric, ?)'
  const { rows } = await db.knex.raw(`
    select ${hexColumn('b.holder')} as holder, b.token_id::text, b.value::text, coalesce(a.contract_code is not null, false) as holder_is_contract
    from (select * from token_balances b where b.token_address = ? and b.token_id = ?::numeric and b.token_id >= 0 and b.value > 0 ${after}
      order by b.value desc, b.holder desc limit ${PAGE_SIZE + 1}) b
    left join addresses a on a.hash = b.holder
    order by b.value desc, b.holder desc`, cursor === undefined ? [token, tokenId] : [token, tokenId, cursor.value, cursor.holder])
  return rows
}

/** Transfers that moved the id (an ERC-1155 batch once per item naming it). */
export async function countInstanceTransfers (db: QueryDb, { token, tokenId }: { token: Buffer, tokenId: string }): Promise<number> {
  const { rows } = await db.knex.raw('select count(*)::int as n from token_transfers where token_address = ? and token_id = ?::numeric', [token, tokenId])
  return rows[0].n
}

/** The instances of (token, id) pairs in one statement, in the order asked: a page of ERC-1155 holdings carries them all. */
export async function findTokenInstances (db: QueryDb, pairs: Array<{ token: Buffer, tokenId: string }>): Promise<InstanceRecord[]> {
  if (pairs.length === 0) return []
  const { rows } = await db.knex.raw(`
    select ${OWNER_COLUMNS} from unnest(?::bytea[], ?::numeric[]) with ordinality as i(token_address, token_id, position)
    ${ownerJoin('i.token_address')}
    order by i.position`, [pairs.map((p) => p.token), pairs.map((p) => p.tokenId)])
  return rows
}
