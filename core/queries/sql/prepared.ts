// Hot explorer reads as named prepared statements. Through knex every request
// is parsed and planned again, and for a page of transactions with its joins
// planning costs PostgreSQL three times what executing does; a named
// statement is planned once per connection (PostgreSQL re-plans it by itself
// when the schema changes). The name is derived from the SQL text, so two
// texts never share one.
//
// They run on a pool of their own (core/db/index.ts) whose sessions always
// use a statement's generic plan. Left to choose, PostgreSQL compares the
// generic plan's estimate with the custom plans': for a loader's
// unnest($1::text[]) it guesses ten keys where a custom plan sees the one
// bound, so it planned every execution anew, and planning was half the
// database's time per GraphQL request (bench:graphql). Every statement here is
// written to have one good plan for all values (limits are literals, a
// busy address is compared through a sub-select). knex's own queries keep
// PostgreSQL's choice: they bind limits, which a generic plan cannot see.
import { createHash } from 'node:crypto'
import type { Knex } from 'knex'
import type pg from 'pg'

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

export type PreparedStatements = {
  /** The rows of `text` (with $1, $2... placeholders) run as a named prepared statement. */
  rows<Row>(text: string, values: unknown[]): Promise<Row[]>
  /** The same for a text with knex raw's `?` placeholders. */
  raw<Row>(sql: string, bindings: readonly unknown[]): Promise<Row[]>
}

export type PreparedStatementsOptions = {
  knex: Knex
  /** The pool of generic-plan sessions (core/db/index.ts); without one, statements run on knex's connections. */
  pool?: pg.Pool
}

/**
 * Named prepared statements on `pool`, or on `knex`'s connection when there is
 * none: a knex transaction passed as `knex` runs them on its own connection,
 * whose session knex set up.
 */
export function createPreparedStatements ({ knex, pool }: PreparedStatementsOptions): PreparedStatements {
  async function rows<Row> (text: string, values: unknown[]): Promise<Row[]> {
    const config = { name: statementName(text), text, values }
    if (pool !== undefined) return (await pool.query(config)).rows as Row[]
    const connection = await knex.client.acquireConnection() as PgConnection
    try {
      return (await connection.query(config)).rows as Row[]
    } finally {
      await knex.client.releaseConnection(connection)
    }
  }
  async function raw<Row> (sql: string, bindings: readonly unknown[]): Promise<Row[]> {
    const { text, count } = nativeText(sql)
    if (count !== bindings.length) throw new Error(`Expected ${count} bindings, saw ${bindings.length}`)
    if (bindings.includes(undefined)) throw new Error('Undefined binding(s) detected when compiling RAW query')
    return await rows<Row>(text, [...bindings])
  }
  return { rows, raw }
}

const nativeTexts = new Map<string, { text: string, count: number }>()

/**
 * `sql` with its `?` placeholders numbered `$1, $2...` as pg wants them, and
 * how many there are; worked out once per text. knex's raw() did it on every
 * call, running a regular expression over the whole statement twice: a few
 * per cent of the gateway's time per GraphQL request (bench:graphql). The
 * texts here bind values only: knex's `??` (an identifier) and `\?` (a
 * literal question mark) are refused rather than half supported.
 */
export function nativeText (sql: string): { text: string, count: number } {
  let native = nativeTexts.get(sql)
  if (native === undefined) {
    if (sql.includes('??') || sql.includes('\\?')) throw new Error('preparedRaw binds values only: no ?? or \\? in its SQL')
    let count = 0
    native = { text: sql.replace(/\?/g, () => `$${++count}`), count }
    nativeTexts.set(sql, native)
  }
  return native
}
