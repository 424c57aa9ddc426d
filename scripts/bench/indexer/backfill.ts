// A full backfill with the gateway's own indexer (createIndexer) into an empty
// database, timed from start() to the commit of the node's head block, with
// its RPC and its store transactions measured from outside (instrument.ts).
import { tmpdir } from 'node:os'
import { performance } from 'node:perf_hooks'
import type { Knex } from 'knex'
import { openDatabase } from '../../../core/db/index.ts'
import { createIndexer } from '../../../core/indexer/index.ts'
import type { RpcClient } from '../../../core/rpc/client.ts'
import type { BlockRows } from '../../../core/indexer/types.ts'
import { startCpuMeter, type CpuUsage } from '../../lib/cpu.ts'
import { createBenchLogger } from './log.ts'
import { instrumentRpc, instrumentTransactions, traceSql, type RpcStats, type SqlStat, type StoreStats } from './instrument.ts'
import { waitForIndexed } from './wait.ts'
import { startProfile, type ProfileSummary } from './profile.ts'

export type RowCounts = Record<string, number>

export type BackfillResult = {
  ms: number
  blocks: number
  transactions: number
  cpu: CpuUsage
  /** Share of the run this process's event loop was busy, 0..1. */
  eventLoopUtilization: number
  rows: RowCounts
  rpc: RpcStats
  store: StoreStats
  profile: ProfileSummary | undefined
  /** Every statement's time, when traced. */
  sql: SqlStat[] | undefined
}

export type BackfillOptions = {
  rpc: RpcClient
  wsUrl: string | undefined
  gethPid: number | undefined
  /** The database server's postmaster, when its CPU time can be read. */
  postgresPid?: number
  databaseUrl: string
  head: number
  timeoutMs: number
  batchBlocks?: number
  batchesInFlight?: number
  /** Write a CPU profile of the backfill here. */
  profileFile?: string
  /** Time every SQL statement (patches pg for the run). */
  traceSql?: boolean
  /** Keep every stored batch (BlockRows), to store them again on their own. */
  keepBatches?: boolean
}

export async function runBackfill (o: BackfillOptions): Promise<BackfillResult & { recordedBatches: string[], storedBatches: BlockRows[][] }> {
  const { log, lastWarning } = createBenchLogger()
  // Migrated before the clock starts: an empty schema is where a first start begins.
  const database = await openDatabase({ url: o.databaseUrl, dataDir: tmpdir(), log })
  try {
    const rpc = instrumentRpc(o.rpc)
    const storeStats = instrumentTransactions(database.knex)
    // As the gateway's indexer plugin makes it (with Geth's WebSocket for new heads).
    const storedBatches: BlockRows[][] = []
    const indexer = createIndexer({
      db: database.knex,
      databaseUrl: database.url,
      rpc: rpc.rpc,
      wsUrl: o.wsUrl,
      log,
      batchBlocks: o.batchBlocks,
      batchesInFlight: o.batchesInFlight,
      onBatchStored: o.keepBatches === true ? (batch) => storedBatches.push(batch) : undefined
    })
    const stopProfile = o.profileFile === undefined ? undefined : await startProfile(o.profileFile)
    const stopSqlTrace = o.traceSql === true ? traceSql() : undefined
    const stopCpuMeter = await startCpuMeter(o.gethPid, o.postgresPid)
    const eluBefore = performance.eventLoopUtilization()
    const startedAt = performance.now()
    indexer.start()
    let doneAt: number
    try {
      doneAt = await waitForIndexed(indexer, o.head, { timeoutMs: o.timeoutMs, lastWarning })
    } finally {
      await indexer.stop()
    }
    const elu = performance.eventLoopUtilization(eluBefore)
    const cpu = await stopCpuMeter()
    const profile = await stopProfile?.()
    const sql = stopSqlTrace?.()
    const rows = await countRows(database.knex)
    return {
      ms: doneAt - startedAt,
      blocks: rows.blocks ?? 0,
      transactions: rows.transactions ?? 0,
      cpu,
      eventLoopUtilization: elu.utilization,
      rows,
      rpc: rpc.stats(),
      store: storeStats(),
      profile,
      sql,
      recordedBatches: rpc.recorded(),
      storedBatches
    }
  } finally {
    await database.close()
  }
}

/** Rows in every table the indexer writes (whichever exist: the schema grows). */
export async function countRows (db: Knex): Promise<RowCounts> {
  const { rows } = await db.raw<{ rows: Array<{ table: string }> }>(`
    select table_name as table from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'knex%' and table_name <> 'chain_meta'
    order by table_name`)
  const counts: RowCounts = {}
  for (const { table } of rows) counts[table] = Number((await db(table).count({ n: '*' }).first())!.n)
  return counts
}
