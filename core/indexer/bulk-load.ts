// Bulk load: a backfill far behind the head (a first start, a long outage)
// stores only the chain's own rows, as ponder does for its historical sync.
// The secondary indexes and foreign keys of the big tables are dropped and
// the running sums (addresses, token balances, holder counts) left behind;
// near the head all are made once, set-wise, which costs far less than keeping
// them up batch by batch. Every step is one transaction and the state lives in
// the database (indexer_bulk_load: sums pending; indexer_deferred_indexes:
// indexes and foreign keys pending), so a crash at any moment resumes the
// load, and anything that deletes blocks (whose cascades need the foreign
// keys) finishes it first.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import { applyAggregates } from './aggregates.ts'
import { writeFenced, type WriterFence } from './lock.ts'

/** Fewer blocks behind than this, a backfill keeps every index and sum up to date as it goes. */
export const BULK_LOAD_MIN_BLOCKS = 1000
/**
 * The tables most of a batch's rows go to. Their non-unique indexes whose
 * first column is not block_number are deferred: keys such as addresses and
 * hashes land all over the tree, while block-ordered keys only append.
 */
const DEFERRED_TABLES = ['transactions', 'logs', 'internal_transactions', 'token_transfers', 'coin_balances']
/** Dropping an index waits for readers of its table; a backfill does not wait long for that. */
const LOCK_TIMEOUT = '5s'
const LOCK_NOT_AVAILABLE = '55P03'
// Sorting for index builds and grouping for the sums, once: memory speeds both up.
const FINISH_MAINTENANCE_WORK_MEM = '256MB'
const FINISH_WORK_MEM = '64MB'
/** Transactions finishing a load at once: the sums and one table's indexes each, a core apiece. */
const FINISH_LANES = 2

export type BulkLoad = { aggregatedThrough: number }

type Deferred = { kind: 'index' | 'foreign key', table_name: string, name: string, definition: string }

/** A statement whose one row, if any, says a bulk load is open (readBulkLoad). */
export const BULK_LOAD_ROW = 'select aggregated_through from indexer_bulk_load limit 1'

export async function readBulkLoad (db: Knex | Knex.Transaction): Promise<BulkLoad | undefined> {
  const row = await db('indexer_bulk_load').first('aggregated_through')
  return row === undefined ? undefined : { aggregatedThrough: Number(row.aggregated_through) }
}

/** Whether a load, or the index builds of one, is left to finish. */
export async function isBulkLoadOpen (db: Knex): Promise<boolean> {
  return await readBulkLoad(db) !== undefined || await db('indexer_deferred_indexes').first('name') !== undefined
}

/**
 * Worth it only when the backlog is long, and longer than what is stored:
 * building an index again reads the whole table, not just the new rows.
 */
export function shouldBulkLoad (stored: number, head: number, minBlocks: number): boolean {
  const backlog = head - stored
  return minBlocks > 0 && backlog >= minBlocks && backlog > stored + 1
}

/**
 * Records a bulk load above block `stored` and drops the deferred indexes and
 * foreign keys, keeping their definitions, in one transaction. False when a table could not
 * be locked in time (long reads): the backfill then goes on incrementally.
 */
export async function startBulkLoad (db: Knex, stored: number, log: Logger, fence?: WriterFence): Promise<boolean> {
  try {
    const dropped = await writeFenced(db, fence, async (trx) => {
      await trx.raw(`set local lock_timeout = '${LOCK_TIMEOUT}'`)
      const inserted = await trx('indexer_bulk_load').insert({ aggregated_through: stored }).onConflict('id').ignore().returning('id')
      if (inserted.length === 0) return []
      const tables = `{${DEFERRED_TABLES.join(',')}}`
      const { rows: indexes } = await trx.raw<{ rows: Deferred[] }>(`
        select 'index' as kind, ct.relname as table_name, ci.relname as name, pg_get_indexdef(ix.indexrelid) as definition
        from pg_index ix
          join pg_class ci on ci.oid = ix.indexrelid
          join pg_class ct on ct.oid = ix.indrelid
          left join pg_attribute a on a.attrelid = ct.oid and a.attnum = ix.indkey[0]
        where ct.relnamespace = current_schema()::regnamespace and ct.relname = any(?::text[])
          and not ix.indisunique and coalesce(a.attname, '') <> 'block_number'
        order by 2, 3`, [tables])
      // Checked row by row, a foreign key costs an index probe of blocks per
      // row; made again at the end it is one set-wise check per table.
      const { rows: foreignKeys } = await trx.raw<{ rows: Deferred[] }>(`
        select 'foreign key' as kind, t.relname as table_name, c.conname as name,
          format('alter table %I add constraint %I %s', t.relname, c.conname, pg_get_constraintdef(c.oid)) as definition
        from pg_constraint c join pg_class t on t.oid = c.conrelid
        where c.contype = 'f' and t.relnamespace = current_schema()::regnamespace and t.relname = any(?::text[])
        order by 2, 3`, [tables])
      const deferred = [...indexes, ...foreignKeys]
      if (deferred.length > 0) await trx('indexer_deferred_indexes').insert(deferred)
      for (const { name } of indexes) await trx.raw('drop index ??', [name])
      for (const { table_name: table, name } of foreignKeys) await trx.raw('alter table ?? drop constraint ??', [table, name])
      return deferred.map((d) => d.name)
    })
    log.info({ above_block: stored, deferred: dropped }, 'bulk load: indexes and running sums are built once near the head')
    return true
  } catch (err) {
    if ((err as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw err
    log.warn('bulk load not started: the tables are busy; indexing incrementally')
    return false
  }
}

/**
 * Brings the running sums up to the stored head and builds the deferred
 * indexes again, all in the caller's transaction (before blocks are deleted).
 * False when nothing was left to finish.
 */
export async function finishBulkLoad (trx: Knex.Transaction): Promise<boolean> {
  const summed = await applyDeferredSums(trx)
  const built = await buildDeferredIndexes(trx)
  return summed || built
}

/**
 * The same, faster: the sums in one transaction and each table's indexes in
 * another, FINISH_LANES at a time (the sums only read the tables whose
 * indexes are being built). A crash in between leaves indexes deferred with
 * the sums done; isBulkLoadOpen() then says so and this is called again.
 */
export async function finishBulkLoadConcurrently (db: Knex, fence?: WriterFence): Promise<boolean> {
  const tables: string[] = await db('indexer_deferred_indexes').distinct('table_name').pluck('table_name')
  const tasks = [
    async () => await writeFenced(db, fence, applyDeferredSums),
    ...tables.map((table) => async () => await writeFenced(db, fence, async (trx) => await buildDeferredIndexes(trx, table)))
  ]
  // Settled, not all(): a lane that fails must not leave the other one's outcome unhandled.
  const lanes = await Promise.allSettled(Array.from({ length: FINISH_LANES }, async () => {
    let any = false
    for (let task = tasks.shift(); task !== undefined; task = tasks.shift()) any = (await task() === true) || any
    return any
  }))
  const failed = lanes.find((lane) => lane.status === 'rejected')
  if (failed !== undefined) throw failed.reason
  return lanes.some((lane) => lane.status === 'fulfilled' && lane.value)
}

/** The sums of the blocks loaded since the load began; false when no load was open. */
export async function applyDeferredSums (trx: Knex.Transaction): Promise<boolean> {
  const bulk = await trx('indexer_bulk_load').forUpdate().first('aggregated_through')
  if (bulk === undefined) return false
  await trx.raw(`set local work_mem = '${FINISH_WORK_MEM}'`)
  const head = (await trx('blocks').max({ n: 'number' }).first())?.n
  const from = Number(bulk.aggregated_through) + 1
  // Contract code went straight into addresses while loading (recordContracts).
  if (head !== null && head !== undefined && Number(head) >= from) await applyAggregates(trx, from, Number(head), [])
  await trx('indexer_bulk_load').delete()
  return true
}

/** The deferred indexes, then foreign keys (of one table, or all) made again; false when there were none. */
async function buildDeferredIndexes (trx: Knex.Transaction, table?: string): Promise<boolean> {
  // Indexes first: a foreign key locks blocks against the other lanes' foreign keys until commit.
  const query = trx('indexer_deferred_indexes').forUpdate().select<Deferred[]>('kind', 'table_name', 'name', 'definition').orderBy('kind', 'desc')
  const deferred = await (table === undefined ? query : query.where('table_name', table))
  if (deferred.length === 0) return false
  await trx.raw(`set local maintenance_work_mem = '${FINISH_MAINTENANCE_WORK_MEM}'`)
  for (const d of deferred) {
    // A migration may have made it again in the meantime.
    const exists = d.kind === 'index'
      ? 'select to_regclass(?) is not null as present'
      : 'select exists (select 1 from pg_constraint where conname = ? and conrelid = to_regclass(?)) as present'
    const { rows: [found] } = await trx.raw(exists, d.kind === 'index' ? [d.name] : [d.name, d.table_name])
    if (found.present !== true) await trx.raw(d.definition)
    await trx('indexer_deferred_indexes').where({ kind: d.kind, table_name: d.table_name, name: d.name }).delete()
  }
  return true
}
