// The writer's loop, while this instance holds the indexer lock: follow the
// node from the stored head (follow.ts), store each batch (store.ts) under the
// lock's fence, roll back on a reorg, and publish what was committed. A bulk
// load (bulk-load.ts) is opened for a long backfill and finished near the head.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import type { RpcClient } from '../rpc/client.ts'
import { BULK_LOAD_MIN_BLOCKS, finishBulkLoadConcurrently, isBulkLoadOpen, shouldBulkLoad, startBulkLoad } from './bulk-load.ts'
import { toCommittedBlock, type IndexerEvents } from './events.ts'
import { fetchHeadNumber } from './fetch.ts'
import { follow } from './follow.ts'
import type { LatestBalances } from './latest-balances.ts'
import type { WriterFence } from './lock.ts'
import type { NewHeads } from './new-heads.ts'
import { createProgress } from './progress.ts'
import { deleteBlocksAbove, readIndexedHead, storeBlocks } from './store.ts'
import type { TokenMetadataCache } from './tokens.ts'
import type { BlockRows } from './types.ts'

// Larger batches spread each transaction's fixed cost (statements, commit) over more rows.
export const BATCH_BLOCKS = 50
export const BATCHES_IN_FLIGHT = 4
/** Idle poll; with a WebSocket the new-head notification usually ends the wait first. */
export const HEAD_POLL_MS = 100

/** What the writer reports as it goes, for status() (/health, metrics). */
export type WriterProgress = { indexedHead: number | null, nodeHead: number | null }

export type WriterOptions = {
  db: Knex
  rpc: RpcClient
  log: Logger
  events: IndexerEvents
  newHeads: NewHeads
  tokenCache: TokenMetadataCache
  latestBalances: LatestBalances
  progress: WriterProgress
  batchBlocks?: number
  batchesInFlight?: number
  headPollMs?: number
  /** A backfill this many blocks behind or more bulk-loads (bulk-load.ts); 0 never. */
  bulkLoadMinBlocks?: number
  /** Each batch's decoded rows once committed (bench:indexer replays them); subscribers use the events. */
  onBatchStored?: (batch: BlockRows[]) => void
}

/** Indexes until `signal` aborts; every write commits only under `fence`. `onStored` hears of each batch stored. */
export async function indexAsWriter (o: WriterOptions, fence: WriterFence, signal: AbortSignal, onStored: () => void): Promise<void> {
  const progress = createProgress(o.log)
  const record = (batch: BlockRows[], nodeHead: number): void => {
    onStored()
    progress.record(batch, nodeHead)
    o.onBatchStored?.(batch)
  }
  while (!signal.aborted) await indexFromStoredHead(o, fence, signal, record)
}

/** One pass of follow from the head as stored now: ends at a reorg (rolled back) or when `signal` aborts. */
async function indexFromStoredHead (o: WriterOptions, fence: WriterFence, signal: AbortSignal, record: (batch: BlockRows[], nodeHead: number) => void): Promise<void> {
  const stored = await readIndexedHead(o.db)
  const last = stored?.number ?? -1
  o.progress.indexedHead = stored?.number ?? null
  // From a stored head read anew: another writer or a reorg may have changed what lies below it.
  o.latestBalances.clear()
  const nodeHead = o.progress.nodeHead = await fetchHeadNumber(o.rpc, signal)
  const batchBlocks = o.batchBlocks ?? BATCH_BLOCKS
  let bulk = await openBulkLoad(o, fence, last, nodeHead)
  // Nothing to fetch (a load a crash left open at the head): no batch would come to finish it.
  if (bulk && nodeHead <= last) bulk = await finishBulk(o, fence)
  const events = follow({
    rpc: o.rpc,
    db: o.db,
    log: o.log,
    newHeads: o.newHeads,
    stored: { number: last, hash: stored?.hash },
    nodeHead,
    batchBlocks,
    batchesInFlight: o.batchesInFlight ?? BATCHES_IN_FLIGHT,
    headPollMs: o.headPollMs ?? HEAD_POLL_MS,
    tokenCache: o.tokenCache,
    onNodeHead: (head) => { o.progress.nodeHead = head },
    signal
  })
  for await (const event of events) {
    if (event.type === 'reorg') {
      await rollBack(o, fence, event.ancestor)
      return
    }
    await storeBlocks(o.db, event.batch, o.latestBalances, fence)
    const top = event.batch[event.batch.length - 1]!.block.number
    o.progress.indexedHead = top
    // Near the head: what is left is stored incrementally, with every index in place.
    if (bulk && event.nodeHead - top <= batchBlocks) bulk = await finishBulk(o, fence)
    record(event.batch, event.nodeHead)
    o.events.publish({ type: 'block', blocks: event.batch.map(toCommittedBlock), storedHere: true })
    // Let HTTP requests in between batches while backfilling.
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** Whether a bulk load is open: one left unfinished by a crash goes on whatever the backlog now. */
async function openBulkLoad (o: WriterOptions, fence: WriterFence, last: number, nodeHead: number): Promise<boolean> {
  if (await isBulkLoadOpen(o.db)) return true
  if (!shouldBulkLoad(last, nodeHead, o.bulkLoadMinBlocks ?? BULK_LOAD_MIN_BLOCKS)) return false
  return await startBulkLoad(o.db, last, o.log, fence)
}

/** Builds what a bulk load deferred; false, for `bulk`, once done. */
async function finishBulk (o: WriterOptions, fence: WriterFence): Promise<false> {
  const startedAt = performance.now()
  if (await finishBulkLoadConcurrently(o.db, fence)) o.log.info({ ms: Math.round(performance.now() - startedAt) }, 'bulk load finished: indexes and running sums built')
  return false
}

async function rollBack (o: WriterOptions, fence: WriterFence, ancestor: number): Promise<void> {
  const removed = await deleteBlocksAbove(o.db, ancestor, fence)
  o.log.warn({ ancestor, removed_blocks: removed }, 'reorg: rolled back to the common ancestor')
  o.events.publish({ type: 'reorg', ancestor, removed, storedHere: true })
}
