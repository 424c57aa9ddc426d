// The benchmark's database: a named database on DATABASE_URL's server (or on
// an embedded PostgreSQL kept under the cache dir), filled once through the
// indexer's store stage and reused while its row counts match the shape.
import { join } from 'node:path'
import pg from 'pg'
import type { Knex } from 'knex'
import { openDatabase, type Database } from '../../../core/db/index.ts'
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from '../../../core/db/embedded-postgres.ts'
import { storeBlocks } from '../../../core/indexer/store.ts'
import type { Logger } from '../../../core/logger.ts'
import { DEFAULT_SHAPE, generateBlock, type ChainShape } from './generate.ts'
import { readPostmasterPid } from '../../lib/cpu.ts'

// Bump when generate.ts changes what it writes: an old fill is then rebuilt, not reused.
const DATABASE_NAME = 'tg_bench_rest_v1'
const EMBEDDED_DIR = 'bench-rest-postgres'
const STORE_BATCH_BLOCKS = 1000
const MS_PER_S = 1000
const PROGRESS_EVERY_BLOCKS = 10_000

export type BenchDatabase = {
  database: Database
  url: string
  filled: 'reused' | 'now'
  fillS: number
  /** The embedded server's postmaster, for its CPU time; undefined on DATABASE_URL's server. */
  postmasterPid: number | undefined
  close (): Promise<void>
}

/** Another shape (a smaller one for a loaded machine) gets a database of its own: the default fill stays cached. */
const databaseName = (shape: ChainShape): string =>
  shape.blocks === DEFAULT_SHAPE.blocks && shape.transactionsPerBlock === DEFAULT_SHAPE.transactionsPerBlock && shape.addresses === DEFAULT_SHAPE.addresses
    ? DATABASE_NAME
    : `${DATABASE_NAME}_${shape.blocks}x${shape.transactionsPerBlock}x${shape.addresses}`

export async function openBenchDatabase (shape: ChainShape, cacheDir: string, log: Logger): Promise<BenchDatabase> {
  const server = await openServer(cacheDir, log)
  const name = databaseName(shape)
  const url = new URL(server.adminUrl)
  url.pathname = `/${name}`
  const wanted = { blocks: shape.blocks + 1, transactions: shape.blocks * shape.transactionsPerBlock }
  let filled: BenchDatabase['filled'] = 'reused'
  let fillS = 0
  if (!await hasCounts(url.toString(), wanted)) {
    await admin(server.adminUrl, `drop database if exists ${name} with (force)`)
    await admin(server.adminUrl, `create database ${name}`)
    filled = 'now'
  }
  const database = await openDatabase({ url: url.toString(), dataDir: cacheDir, log })
  try {
    if (filled === 'now') {
      const started = performance.now()
      await fill(database.knex, shape)
      fillS = (performance.now() - started) / MS_PER_S
    }
  } catch (err) {
    await database.close()
    await server.embedded?.stop()
    throw err
  }
  return {
    database,
    url: url.toString(),
    filled,
    fillS,
    postmasterPid: server.embedded === undefined ? undefined : await readPostmasterPid(join(cacheDir, EMBEDDED_DIR)),
    async close () {
      await database.close()
      await server.embedded?.stop()
    }
  }
}

async function openServer (cacheDir: string, log: Logger): Promise<{ adminUrl: string, embedded: EmbeddedPostgresServer | undefined }> {
  const external = process.env.DATABASE_URL
  if (external !== undefined && external !== '') return { adminUrl: external, embedded: undefined }
  const embedded = await startEmbeddedPostgres({ databaseDir: join(cacheDir, EMBEDDED_DIR), log })
  return { adminUrl: embedded.adminUrl, embedded }
}

async function withClient<T> (url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

async function admin (url: string, sql: string): Promise<void> {
  await withClient(url, async (client) => { await client.query(sql) })
}

/** True when the database exists, is migrated and holds exactly the shape's blocks and transactions. */
async function hasCounts (url: string, wanted: { blocks: number, transactions: number }): Promise<boolean> {
  try {
    return await withClient(url, async (client) => {
      const { rows } = await client.query('select (select count(*) from blocks)::int as blocks, (select count(*) from transactions)::int as transactions')
      return rows[0].blocks === wanted.blocks && rows[0].transactions === wanted.transactions
    })
  } catch {
    return false
  }
}

/** Blocks 0..shape.blocks through storeBlocks, a thousand blocks per transaction, then statistics for the planner. */
async function fill (knex: Knex, shape: ChainShape): Promise<void> {
  const started = performance.now()
  for (let from = 0; from <= shape.blocks; from += STORE_BATCH_BLOCKS) {
    const batch = []
    for (let n = from; n < Math.min(from + STORE_BATCH_BLOCKS, shape.blocks + 1); n++) batch.push(generateBlock(n, shape))
    await storeBlocks(knex, batch)
    const done = Math.min(from + STORE_BATCH_BLOCKS, shape.blocks + 1)
    if (done % PROGRESS_EVERY_BLOCKS === 0 || done === shape.blocks + 1) {
      const elapsedS = (performance.now() - started) / MS_PER_S
      console.error(`  filled ${done} of ${shape.blocks + 1} blocks, ${Math.round(done * shape.transactionsPerBlock / elapsedS)} transactions/s`)
    }
  }
  await knex.raw('vacuum analyze')
}
