// Rows into a table with COPY ... FROM STDIN, text format. PostgreSQL parses
// each value once and writes the heap in multi-row batches; an insert-select
// from unnested array literals parses every array first, then inserts row by
// row. COPY fires the table's triggers and checks its constraints as an
// insert does; it has no ON CONFLICT, so upserts stay insert-selects.
import { finished } from 'node:stream/promises'
import type { Knex } from 'knex'
import { from as copyFrom } from 'pg-copy-streams'
import { onTransactionConnection } from '../db/statements.ts'

export type ColumnType = 'bytea' | 'bigint' | 'integer' | 'smallint' | 'numeric' | 'boolean' | 'text' | 'timestamptz' | 'integer[]'
export type Columns<Row> = Array<[keyof Row & string, ColumnType]>

const MS_PER_S = 1000
/** COPY's text format: these four would end a field or a row, or start an escape. */
const COPY_SPECIAL = /[\\\t\n\r]/g
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }

/**
 * One field of COPY text per type. Hex and digits need no escaping; bytea goes
 * in PostgreSQL's hex form (\x..., its backslash doubled for COPY).
 */
const FIELD: Record<ColumnType, (v: unknown) => string> = {
  bytea: (v) => `\\\\x${(v as string).slice(2)}`,
  bigint: String,
  integer: String,
  smallint: String,
  numeric: String,
  boolean: (v) => v === true ? 't' : 'f',
  text: (v) => (v as string).replace(COPY_SPECIAL, (c) => COPY_ESCAPES[c]!),
  // Rows carry seconds since the epoch.
  timestamptz: (v) => new Date(Number(v) * MS_PER_S).toISOString(),
  'integer[]': (v) => `{${(v as number[]).join(',')}}`
}

/** Appends `rows` to `table` in the caller's transaction. */
export async function copyRows<Row> (trx: Knex.Transaction, table: string, columns: Columns<Row>, rows: Row[]): Promise<void> {
  if (rows.length === 0) return
  const fields = columns.map(([name, type]) => [name as keyof Row, FIELD[type]] as const)
  let text = ''
  for (const row of rows) {
    for (let c = 0; c < fields.length; c++) {
      const [name, field] = fields[c]!
      const v = row[name]
      text += (c === 0 ? '' : '\t') + (v === null || v === undefined ? '\\N' : field(v))
    }
    text += '\n'
  }
  const names = columns.map(([name]) => `"${name}"`).join(', ')
  await onTransactionConnection(trx, async (client) => {
    const stream = client.query(copyFrom(`copy ${table} (${names}) from stdin`))
    stream.end(text)
    await finished(stream)
  })
}
