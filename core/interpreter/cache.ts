// Summaries kept per transaction in PostgreSQL (migration
// 2026_11_26_0_transaction_interpretations): interpreting reads a dozen rows
// and maybe ABIs; a cached answer is one primary-key read. Stale rows are
// never served: a reorg deletes them by cascade, and a row counts only while
// its version is the current one.
import type { Knex } from 'knex'
import type { Summary } from './types.ts'

/** Bump when the templates or the facts they read change: every cached summary is then written again. */
export const TEMPLATES_VERSION = 1

const bytes = (hex: string) => Buffer.from(hex.slice(2), 'hex')
const VERSION_PREFIX = `${TEMPLATES_VERSION}.`

/** A transaction's cached summaries while current (else undefined), and the generation current when read. */
export type CachedSummaries = { summaries: Summary[] | undefined, generation: string }

export async function readCachedSummaries (db: Knex, hash: string): Promise<CachedSummaries> {
  const { rows } = await db.raw(`select g.generation::text as generation, i.summaries from interpretation_generation g
    left join transaction_interpretations i on i.transaction_hash = ? and i.version = ? || g.generation`, [bytes(hash), VERSION_PREFIX])
  return { summaries: rows[0].summaries ?? undefined, generation: rows[0].generation }
}

/**
 * Keeps a transaction's summaries and the addresses they name, as of
 * `generation` (read before the facts they were made from): nothing is
 * written once the generation moved on, since those facts may predate a
 * verification. A transaction a reorg took meanwhile is skipped.
 */
export async function writeCachedSummaries (db: Knex, hash: string, summaries: Summary[], addresses: readonly string[], generation: string): Promise<void> {
  await db.raw(`insert into transaction_interpretations (transaction_hash, version, summaries, addresses)
    select t.hash, ?, ?::jsonb, ?::bytea[] from transactions t, interpretation_generation g where t.hash = ? and g.generation = ?::bigint
    on conflict (transaction_hash) do update set version = excluded.version, summaries = excluded.summaries, addresses = excluded.addresses, created_at = now()`,
  [VERSION_PREFIX + generation, JSON.stringify(summaries), addresses.map(bytes), bytes(hash), generation])
}

/**
 * Forgets the summaries that name any of `addresses` (lowercase 0x-hex):
 * for contract verification, once it stored a contract whose name or ABI
 * changes how its transactions read. Returns how many were forgotten.
 */
export async function invalidateInterpretations (db: Knex, addresses: readonly string[]): Promise<number> {
  if (addresses.length === 0) return 0
  const { rowCount } = await db.raw('delete from transaction_interpretations where addresses && ?::bytea[]', [addresses.map((a) => bytes(a.toLowerCase()))])
  return rowCount ?? 0
}

/** Makes every cached summary stale at once (the version key): cheaper than deleting them all. */
export async function bumpInterpretationGeneration (db: Knex): Promise<void> {
  await db.raw('update interpretation_generation set generation = generation + 1')
}
