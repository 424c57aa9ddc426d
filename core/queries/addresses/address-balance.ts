// An address's current coin balance and the block it is as of: what the
// socket tells an address page's subscribers after a block touched it.
import type { QueryDb } from '../sql/query-db.ts'

export type AddressBalance = { coinBalance: string, blockNumber: number | null }

export async function findAddressBalance (db: QueryDb, hash: Buffer): Promise<AddressBalance | undefined> {
  const row = await db.knex('addresses').where('hash', hash).first(db.knex.raw('coin_balance::text as coin_balance'), 'balance_block')
  return row === undefined ? undefined : { coinBalance: row.coin_balance, blockNumber: row.balance_block === null ? null : Number(row.balance_block) }
}

/** How many addresses the index holds: PostgreSQL's estimate past `exactBelow` rows, as a count would read them all. */
export async function countAddresses (db: QueryDb, exactBelow = 100_000): Promise<string> {
  const { rows: [estimate] } = await db.knex.raw<{ rows: Array<{ n: number }> }>("select greatest(reltuples, 0)::float8 as n from pg_class where oid = 'addresses'::regclass")
  if ((estimate?.n ?? 0) >= exactBelow) return String(Math.round(estimate!.n))
  const { rows: [exact] } = await db.knex.raw<{ rows: Array<{ n: string }> }>('select count(*)::text as n from addresses')
  return exact!.n
}
