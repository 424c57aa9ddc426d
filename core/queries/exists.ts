// Existence checks that decide between a list (maybe empty) and a 404.
import type { Knex } from 'knex'

export async function transactionExists (db: Knex, hash: Buffer): Promise<boolean> {
  return (await db('transactions').where('hash', hash).first(db.raw('1 as found'))) !== undefined
}

export async function tokenExists (db: Knex, address: Buffer): Promise<boolean> {
  return (await db('tokens').where('address', address).first(db.raw('1 as found'))) !== undefined
}
