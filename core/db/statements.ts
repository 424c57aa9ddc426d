// Several statements in one round trip to PostgreSQL: sent as one text over
// the simple query protocol (no parameters, so every value in them must be
// inlined: whole numbers, or literals quoted with quoteLiteral). Under load
// each round trip costs a wake-up of the server's process and of ours; the
// indexer's store transaction sends its fixed statements this way.
import type { Knex } from 'knex'

type PgClient = { query: (text: string) => Promise<PgResult | PgResult[]> }

export type PgResult = { rows: any[] }

/** Runs `statements` in order in the caller's transaction, in one round trip; one result each. */
export async function runStatements (trx: Knex.Transaction, statements: string[]): Promise<PgResult[]> {
  const client = await trx.client.acquireConnection() as PgClient
  try {
    const results = await client.query(statements.join(';\n'))
    return Array.isArray(results) ? results : [results]
  } finally {
    await trx.client.releaseConnection(client)
  }
}

/** A whole number for a statement's text; anything else is refused. */
export function inlineInteger (value: number): string {
  if (!Number.isSafeInteger(value)) throw new TypeError(`not a whole number: ${value}`)
  return String(value)
}

/** A string literal for a statement's text: standard_conforming_strings quoting (E'' is never used). */
export function quoteLiteral (text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}
