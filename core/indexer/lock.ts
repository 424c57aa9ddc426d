// One writer: the instance holding this session-level advisory lock indexes;
// the others serve reads and try again. The lock lives on its own connection,
// so it goes when the holder dies (its connection closes) and another takes over.
//
// That connection can also go while the holder lives on (PostgreSQL restarted,
// a network blip, pg_terminate_backend): the holder learns of it late, if at
// all, and meanwhile another instance may take the lock. So every write
// transaction of the writer is fenced: just before it commits it takes a
// second advisory key shared and checks, in pg_locks, that the very session it
// took the lock on still holds it. A new holder takes that second key
// exclusively before writing anything, which waits for the commits that passed
// the check while the lock was still theirs. No write commits without the lock.
import pg from 'pg'
import type { Knex } from 'knex'
import { RetryableError } from '../errors.ts'
import { inlineInteger, quoteLiteral, runStatements } from '../db/statements.ts'

/** "tgindex" as a number: the key every gateway instance on a database agrees on. */
export const INDEXER_LOCK_KEY = 0x7467696e646578
/** "tgfenc": held shared by each writer commit, exclusively (for a moment) by each new writer. */
export const INDEXER_FENCE_KEY = 0x746766656e63

/** A write transaction of the writer calls `verify(trx)` last, before it commits; `before`, statements of the transaction's own, go in the same round trip. */
export type WriterFence = { verify (trx: Knex.Transaction, before?: string[]): Promise<void> }

export type IndexerLock = WriterFence & { release (): Promise<void>, lost: Promise<void> }

/** Retryable: the lock may be free again, or held by another instance that now writes. */
export class IndexerLockLostError extends RetryableError {
  override readonly name: string = 'IndexerLockLostError'
}

/** Keepalive on both ends: a writer whose host drops off the network must lose the lock in seconds, not hours. */
const KEEPALIVE_IDLE_S = 10
const KEEPALIVE_INTERVAL_S = 5
const KEEPALIVE_COUNT = 3

// A bigint advisory key shows in pg_locks as classid (high 32 bits), objid (low 32 bits) and objsubid 1.
// The session is named by pid and start time: a pid alone may be reused by a later session.
const heldBySession = (classid: number, objid: number, pid: number, started: string): string => `
  select exists (
    select 1 from pg_locks l join pg_stat_activity a on a.pid = l.pid
    where l.locktype = 'advisory' and l.granted and l.objsubid = 1
      and l.classid = ${inlineInteger(classid)}::bigint::oid and l.objid = ${inlineInteger(objid)}::bigint::oid
      and l.pid = ${inlineInteger(pid)} and a.backend_start = ${quoteLiteral(started)}::timestamptz
  ) as held`

export async function tryAcquireIndexerLock (databaseUrl: string): Promise<IndexerLock | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl, keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_IDLE_S * 1000 })
  // Listened for at once: an 'error' event nobody hears would end the process.
  const lost = new Promise<void>((resolve) => {
    client.on('error', () => resolve())
    client.on('end', () => resolve())
  })
  await client.connect()
  let session: { pid: number, started: string } | undefined
  try {
    await client.query(`set tcp_keepalives_idle = ${KEEPALIVE_IDLE_S}; set tcp_keepalives_interval = ${KEEPALIVE_INTERVAL_S}; set tcp_keepalives_count = ${KEEPALIVE_COUNT}`)
    const { rows } = await client.query<{ locked: boolean, pid: number, started: string }>(`
      select pg_try_advisory_lock($1) as locked, pid, backend_start::text as started
      from pg_stat_activity where pid = pg_backend_pid()`, [INDEXER_LOCK_KEY])
    if (rows[0]?.locked === true) {
      // The previous writer's commits that passed their check finish first.
      await client.query('select pg_advisory_lock($1)', [INDEXER_FENCE_KEY])
      await client.query('select pg_advisory_unlock($1)', [INDEXER_FENCE_KEY])
      session = rows[0]
    }
  } finally {
    if (session === undefined) await client.end()
  }
  if (session === undefined) return undefined
  const { pid, started } = session
  return {
    lost,
    release: async () => { await client.end().catch(() => {}) },
    async verify (trx, before = []) {
      // One round trip: `before`, the shared fence key, then the check.
      const results = await runStatements(trx, [...before, `select pg_advisory_xact_lock_shared(${inlineInteger(INDEXER_FENCE_KEY)})`,
        heldBySession(Math.floor(INDEXER_LOCK_KEY / 2 ** 32), INDEXER_LOCK_KEY % 2 ** 32, pid, started)])
      if (results[results.length - 1]!.rows[0]?.held !== true) throw new IndexerLockLostError('the indexer lock was lost: this write is not committed')
    }
  }
}

/**
 * A write transaction that commits only while `fence` (when given) still
 * holds the lock. `last`, statements without parameters (a NOTIFY), run after
 * `work` in the same round trip as the fence's check.
 */
export async function writeFenced<T> (db: Knex, fence: WriterFence | undefined, work: (trx: Knex.Transaction) => Promise<T>, last: string[] = []): Promise<T> {
  return await db.transaction(async (trx) => {
    const result = await work(trx)
    if (fence !== undefined) await fence.verify(trx, last)
    else if (last.length > 0) await runStatements(trx, last)
    return result
  })
}
