// One writer: the instance holding this session-level advisory lock indexes;
// the others serve reads and try again. The lock lives on its own connection,
// so it goes when the holder dies (its connection closes) and another takes over.
import pg from 'pg'

/** "tgindex" as a number: the key every gateway instance on a database agrees on. */
export const INDEXER_LOCK_KEY = 0x7467696e646578

export type IndexerLock = { release (): Promise<void>, lost: Promise<void> }

/** Keepalive on both ends: a writer whose host drops off the network must lose the lock in seconds, not hours. */
const KEEPALIVE_IDLE_S = 10
const KEEPALIVE_INTERVAL_S = 5
const KEEPALIVE_COUNT = 3

export async function tryAcquireIndexerLock (databaseUrl: string): Promise<IndexerLock | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl, keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_IDLE_S * 1000 })
  await client.connect()
  let acquired = false
  try {
    await client.query(`set tcp_keepalives_idle = ${KEEPALIVE_IDLE_S}; set tcp_keepalives_interval = ${KEEPALIVE_INTERVAL_S}; set tcp_keepalives_count = ${KEEPALIVE_COUNT}`)
    const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [INDEXER_LOCK_KEY])
    acquired = rows[0]?.locked === true
  } finally {
    if (!acquired) await client.end()
  }
  if (!acquired) return undefined
  const lost = new Promise<void>((resolve) => {
    client.on('error', () => resolve())
    client.on('end', () => resolve())
  })
  return { lost, release: async () => { await client.end().catch(() => {}) } }
}
