// Several statements in one round trip to PostgreSQL: sent as one text over
// the simple query protocol (no parameters, so every value in them must be
// inlined: whole numbers, or literals quoted with quoteLiteral). Under load
// each round trip costs a wake-up of the server's process and of ours; the
// indexer's store transaction sends its fixed statements this way.
import type { Knex } from 'knex'
import type pg from 'pg'

export type PgResult = { rows: any[] }

/**
 * Runs `work` on the connection of the caller's transaction, for what knex's
 * raw cannot send: several statements as one text, COPY, SQL's PREPARE.
 */
export async function onTransactionConnection<T> (trx: Knex.Transaction, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await trx.client.acquireConnection() as pg.Client
  try {
    return await work(client)
  } finally {
    await trx.client.releaseConnection(client)
  }
}

/** Runs `statements` in order in the caller's transaction, in one round trip; one result each. */
export async function runStatements (trx: Knex.Transaction, statements: string[]): Promise<PgResult[]> {
  // pg answers a text of several statements with one result each (its types know only one).
  const results = await onTransactionConnection(trx, async (client) => await client.query(statements.join(';\n')) as PgResult | PgResult[])
  return Array.isArray(results) ? results : [results]
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
