// Hot explorer reads as named prepared statements. Through knex every request
// is parsed and planned again, and for a page of transactions with its joins
// planning costs PostgreSQL three times what executing does; a named
// statement is planned once per pooled connection (PostgreSQL re-plans it by
// itself when the schema changes). The name is derived from the SQL text, so
// two texts never share one.
import { createHash } from 'node:crypto'
import type { Knex } from 'knex'

type PgConnection = { query (config: { name: string, text: string, values: unknown[] }): Promise<{ rows: unknown[] }> }

const names = new Map<string, string>()

function statementName (text: string): string {
  let name = names.get(text)
  if (name === undefined) {
    name = `gw_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`
    names.set(text, name)
  }
  return name
}

/** The rows of `text` (with $1, $2... placeholders) run as a named prepared statement on one of knex's pooled connections. */
export async function preparedRows<Row> (db: Knex, text: string, values: unknown[]): Promise<Row[]> {
  const connection = await db.client.acquireConnection() as PgConnection
  try {
    const { rows } = await connection.query({ name: statementName(text), text, values })
    return rows as Row[]
  } finally {
    await db.client.releaseConnection(connection)
  }
}

/** A knex raw query (`?` placeholders) run as a named prepared statement. */
export async function preparedRaw<Row> (db: Knex, sql: string, bindings: readonly unknown[]): Promise<Row[]> {
  const native = db.raw(sql, bindings as Knex.RawBinding[]).toSQL().toNative()
  return await preparedRows<Row>(db, native.sql, native.bindings as unknown[])
}
