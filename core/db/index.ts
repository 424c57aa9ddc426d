// The database: knex over pg, migrated on open. Without DATABASE_URL an
// embedded PostgreSQL is started in DATA_DIR/postgres and stopped on close.
import { join } from 'node:path'
import knex, { type Knex } from 'knex'
import pg from 'pg'
import type { Logger } from '../logger.ts'
import { DatabaseChainMismatchError } from '../errors.ts'
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from './embedded-postgres.ts'
import { migrationSource } from './migrations/index.ts'

export const POOL_MAX = 10

// int8 (counts, sums) as bigint-safe strings stay strings; numeric(78,0) too.
// Only int4 is parsed to a number, which pg already does.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => value)

/**
 * A pool whose sessions take each statement's generic plan (core/queries/sql/prepared.ts
 * says why). Set by a statement as each connection opens, not by the `options`
 * startup parameter: PgBouncer refuses a connection that sends one.
 */
export const PREPARED_SESSION_SETUP = 'set plan_cache_mode = force_generic_plan'

export function preparedStatementPool (connectionString: string, max: number): pg.Pool {
  return new pg.Pool({
    connectionString,
    max,
    // pg-pool awaits this before handing the connection out; a failure fails that checkout.
    onConnect: async (client: pg.ClientBase) => { await client.query(PREPARED_SESSION_SETUP) }
  })
}

export type Database = {
  knex: Knex
  url: string
  embedded: EmbeddedPostgresServer | undefined
  /** The prepared statements' pool (beside knex's), for its usage figures. */
  prepared: pg.Pool
  close (): Promise<void>
}

export type DatabaseOptions = { url: string | undefined, dataDir: string, log: Logger, poolMax?: number }

export async function openDatabase ({ url, dataDir, log, poolMax = POOL_MAX }: DatabaseOptions): Promise<Database> {
  const embedded = url === undefined
    ? await startEmbeddedPostgres({ databaseDir: join(dataDir, 'postgres'), log })
    : undefined
  const connection = url ?? embedded!.url
  const db = knex({ client: 'pg', connection, pool: { min: 0, max: poolMax }, acquireConnectionTimeout: 10_000 })
  try {
    const [, applied] = await db.migrate.latest({ migrationSource }) as [number, string[]]
    if (applied.length > 0) log.info({ migrations: applied }, 'database migrated')
  } catch (err) {
    await db.destroy()
    await embedded?.stop()
    throw err
  }
  const prepared = preparedStatementPool(connection, poolMax)
  // An idle connection that fails (the server restarted, say) is dropped from the pool; unheard, the error would end the process.
  // pool.end() resolves once it has asked its connections to end, not when they have: an embedded server stopped
  // right after ends them first, which is no failure.
  let closing = false
  prepared.on('error', (err) => { if (!closing) log.warn({ err: err.message }, 'an idle database connection failed') })
  return {
    knex: db,
    url: connection,
    embedded,
    prepared,
    async close () {
      closing = true
      await prepared.end()
      await db.destroy()
      await embedded?.stop()
    }
  }
}

/** Records the chain on first use; refuses a database that indexes another chain. */
export async function bindDatabaseToChain (db: Knex, chainId: number, genesisHash: string): Promise<void> {
  const hash = Buffer.from(genesisHash.slice(2), 'hex')
  await db('chain_meta').insert({ id: true, chain_id: chainId, genesis_hash: hash }).onConflict('id').ignore()
  const row = await db('chain_meta').first('chain_id', 'genesis_hash')
  const stored = '0x' + (row.genesis_hash as Buffer).toString('hex')
  if (row.chain_id !== chainId || stored !== genesisHash.toLowerCase()) throw new DatabaseChainMismatchError(stored, genesisHash)
}

/** SELECT 1 with a deadline, for health checks. */
export async function pingDatabase (db: Knex, timeoutMs: number): Promise<boolean> {
  try {
    await db.raw('select 1').timeout(timeoutMs, { cancel: true })
    return true
  } catch {
    return false
  }
}
