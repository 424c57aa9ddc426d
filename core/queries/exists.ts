// Existence checks that decide between a list (maybe empty) and a 404.
import type { QueryDb } from './sql/query-db.ts'

export async function transactionExists (db: QueryDb, hash: Buffer): Promise<boolean> {
  return (await db.knex('transactions').where('hash', hash).first(db.knex.raw('1 as found'))) !== undefined
}

export async function tokenExists (db: QueryDb, address: Buffer): Promise<boolean> {
  return (await db.knex('tokens').where('address', address).first(db.knex.raw('1 as found'))) !== undefined
}
