// The indexer: backfills from the last stored block and then follows the head.
// Fetches run ahead of the store (a bounded number of batches in flight);
// each batch is stored in one transaction after its parent hash is checked
// against the stored chain, so a reorg is caught before anything is written.
import { EventEmitter, setMaxListeners } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import type { RpcClient } from '../rpc/client.ts'
import { decodeBlockBundle } from './decode.ts'
import { fetchBlockBundles, fetchBlockHashes, fetchHead, fetchHeadNumber } from './fetch.ts'
import { findCommonAncestor } from './reorg.ts'
import { fetchBlockStates } from './state.ts'
import { watchNewHeads, type NewHeads } from './new-heads.ts'
import { fetchTokens, type TokenMetadataCache } from './tokens.ts'
import { deleteBlocksAbove, readIndexedHashes, readIndexedHead, storeBlocks } from './store.ts'
import { IndexerLockLostError, tryAcquireIndexerLock, type IndexerLock, type WriterFence } from './lock.ts'
import { createLatestBalances } from './latest-balances.ts'
import { listenForCommits, readBackFrom, readCommittedBlocks, type CommitListener } from './commit-feed.ts'
import { BULK_LOAD_MIN_BLOCKS, finishBulkLoadConcurrently, isBulkLoadOpen, shouldBulkLoad, startBulkLoad } from './bulk-load.ts'
import { isRetryable } from './failures.ts'
import { createProgress } from './progress.ts'
import type { BlockRows, Hex } from './types.ts'

// Larger batches spread each transaction's fixed cost (statements, commit) over more rows.
const BATCH_BLOCKS = 50
const BATCHES_IN_FLIGHT = 4
/** Blocks decoded between two turns of the event loop. */
const DECODE_SLICE_BLOCKS = 10
/** Idle poll; with a WebSocket the new-head notification usually ends the wait first. */
const HEAD_POLL_MS = 100
const LOCK_RETRY_MS = 2000
/** A reader that lost its commit notices for longer reads back at most this many blocks it missed. */
const MISSED_BLOCKS_READ_BACK = 1000
const RETRY_BASE_MS = 500
const RETRY_MAX_MS = 30_000

export type IndexerRole = 'starting' | 'writer' | 'reader' | 'failed' | 'stopped'

export type IndexerStatus = { role: IndexerRole, indexedHead: number | null, nodeHead: number | null }

/**
 * Emits `blocks` after each commit: the writer its BlockRows[], a reader the
 * writer's committed blocks read back (CommittedBlock[], commit-feed.ts).
 * The writer also emits `reorg` ({ ancestor, removed }).
 */
export type Indexer = EventEmitter & {
  start (): void
  stop (): Promise<void>
  status (): IndexerStatus
}

export type IndexerOptions = {
  db: Knex
  /** For the advisory lock's own connection. */
  databaseUrl: string
  rpc: RpcClient
  /** Geth's WebSocket endpoint for newHeads; polling only when undefined. */
  wsUrl?: string
  log: Logger
  batchBlocks?: number
  batchesInFlight?: number
  headPollMs?: number
  /** A backfill this many blocks behind or more bulk-loads (bulk-load.ts); 0 never. */
  bulkLoadMinBlocks?: number
}

class ReorgDetected extends Error {}

export function createIndexer (o: IndexerOptions): Indexer {
  const events = new EventEmitter()
  const batchBlocks = o.batchBlocks ?? BATCH_BLOCKS
  const batchesInFlight = o.batchesInFlight ?? BATCHES_IN_FLIGHT
  const controller = new AbortController()
  // Every fetch in flight listens on it: more than Node's default of ten is expected.
  setMaxListeners(100, controller.signal)
  const state: IndexerStatus = { role: 'starting', indexedHead: null, nodeHead: null }
  let running: Promise<void> | undefined
  const tokenCache: TokenMetadataCache = new Map()
  const latestBalances = createLatestBalances()
  let newHeads: NewHeads
  let commits: CommitListener | undefined
  /** The last block a commit notice announced, while this instance reads. */
  let heardThrough: number | undefined
  // Batches are read back one after another, so they are emitted in commit order.
  let publishing = Promise.resolve()

  async function run (): Promise<void> {
    const { signal } = controller
    let failures = 0
    while (!signal.aborted) {
      try {
        const lock = await tryAcquireIndexerLock(o.databaseUrl)
        if (lock === undefined) {
          await followAsReader(signal)
          continue
        }
        await stopHearingCommits()
        state.role = 'writer'
        o.log.info('holding the indexer lock: this instance indexes')
        await writeWhileHolding(lock, signal, () => { failures = 0 })
      } catch (err) {
        if (signal.aborted) break
        if (!isRetryable(err)) {
          state.role = 'failed'
          o.log.error({ err }, 'indexer stopped on an error retrying cannot fix')
          return
        }
        const delayMs = Math.min(RETRY_BASE_MS * 2 ** failures++, RETRY_MAX_MS)
        o.log.warn({ err: (err as Error).message, retry_in_ms: delayMs }, 'indexer retrying')
        await sleep(delayMs, undefined, { signal }).catch(() => {})
      }
    }
    await stopHearingCommits()
    state.role = 'stopped'
  }

  /**
   * One tenure as the writer, until stopped or the lock's connection is lost.
   * A lost lock aborts the tenure at once: whatever it was doing ends, and a
   * commit already under way is refused by the lock's fence (lock.ts). It
   * ends in IndexerLockLostError, which is retried: the lock may be free again.
   */
  async function writeWhileHolding (lock: IndexerLock, signal: AbortSignal, onProgress: () => void): Promise<void> {
    const lost = new AbortController()
    lock.lost.then(() => lost.abort(new IndexerLockLostError('lost the indexer lock\'s connection')), () => {})
    // Either ends the tenure; a stop that came while the lock was being taken is already in `signal`.
    const tenure = AbortSignal.any([signal, lost.signal])
    setMaxListeners(100, tenure)
    try {
      await indexAsWriter(tenure, lock, onProgress)
    } catch (err) {
      // Anything that failed because the lock was lost says so, below.
      if (!lost.signal.aborted || signal.aborted) throw err
    } finally {
      await lock.release()
    }
    if (lost.signal.aborted && !signal.aborted) throw lost.signal.reason
  }

  /** Another instance writes: keep the status fresh for /health and try for the lock now and then. */
  async function followAsReader (signal: AbortSignal): Promise<void> {
    if (state.role !== 'reader') o.log.info('another instance holds the indexer lock: serving reads only')
    state.role = 'reader'
    await hearCommits().catch((err: Error) => o.log.warn({ err: err.message }, 'cannot listen for the writer\'s commits; trying again'))
    state.indexedHead = (await readIndexedHead(o.db))?.number ?? null
    state.nodeHead = await fetchHeadNumber(o.rpc, signal).catch(() => state.nodeHead)
    await sleep(LOCK_RETRY_MS, undefined, { signal }).catch(() => {})
  }

  /**
   * As a reader: each batch the writer commits is read back and emitted, as the
   * writer emits its own. Commits announced while the listening connection was
   * down are read with the next one heard (a gap of up to MISSED_BLOCKS_READ_BACK).
   */
  async function hearCommits (): Promise<void> {
    if (commits !== undefined) return
    commits = await listenForCommits(o.databaseUrl, o.log, (from, to) => {
      const start = readBackFrom(heardThrough, from, MISSED_BLOCKS_READ_BACK)
      heardThrough = state.indexedHead = to
      if (events.listenerCount('blocks') === 0) return
      publishing = publishing.then(async () => {
        const blocks = await readCommittedBlocks(o.db, start, to)
        if (blocks.length > 0) events.emit('blocks', blocks)
      }).catch((err: Error) => o.log.warn({ err: err.message, from: start, to }, 'cannot read back the blocks the writer committed'))
    }, () => { commits = undefined })
  }

  async function stopHearingCommits (): Promise<void> {
    const listener = commits
    commits = undefined
    heardThrough = undefined
    await listener?.close()
    await publishing
  }

  async function indexAsWriter (signal: AbortSignal, fence: WriterFence, onProgress: () => void): Promise<void> {
    const progress = createProgress(o.log)
    while (!signal.aborted) {
      const stored = await readIndexedHead(o.db)
      state.indexedHead = stored?.number ?? null
      try {
        await indexFrom(stored?.number ?? -1, stored?.hash, signal, fence, (rows) => {
          onProgress()
          progress.record(rows, state.nodeHead ?? 0)
        })
      } catch (err) {
        if (!(err instanceof ReorgDetected)) throw err
        await rollBackToCommonAncestor(state.indexedHead ?? 0, fence)
      }
    }
  }

  async function indexFrom (last: number, lastHash: Hex | undefined, signal: AbortSignal, fence: WriterFence, onStored: (rows: BlockRows[]) => void): Promise<void> {
    let nextToFetch = last + 1
    let parentHash = lastHash
    // From a stored head read anew: another writer or a reorg may have changed what lies below it.
    latestBalances.clear()
    let head = state.nodeHead = await fetchHeadNumber(o.rpc, signal)
    // A load left unfinished by a crash goes on whatever the backlog now.
    let bulk = await isBulkLoadOpen(o.db)
    if (!bulk && shouldBulkLoad(last, head, o.bulkLoadMinBlocks ?? BULK_LOAD_MIN_BLOCKS)) bulk = await startBulkLoad(o.db, last, o.log, fence)
    const inFlight: Array<{ rows: Promise<BlockRows[]>, ready: boolean }> = []
    const fill = (): void => {
      while (inFlight.length < batchesInFlight && nextToFetch <= head) {
        const to = Math.min(nextToFetch + batchBlocks - 1, head)
        const fetching = { rows: fetchBatch(nextToFetch, to, signal), ready: false }
        // Awaited in order below; the rejection handler only keeps an early failure from going unhandled.
        fetching.rows.then(() => { fetching.ready = true }, () => {})
        inFlight.push(fetching)
        nextToFetch = to + 1
      }
    }
    while (!signal.aborted) {
      fill()
      if (inFlight.length === 0) {
        if (bulk) bulk = await finishBulk(fence)
        await newHeads.wait(o.headPollMs ?? HEAD_POLL_MS, signal)
        const latest = await fetchHead(o.rpc, signal)
        // Caught up: a node head below ours, or a different block at our height, means the chain was replaced.
        const stored = nextToFetch - 1
        if (latest.number < stored || (latest.number === stored && latest.hash !== parentHash)) throw new ReorgDetected()
        head = state.nodeHead = latest.number
        continue
      }
      const batch = await inFlight.shift()!.rows
      // The store is the slower stage: batches fetched meanwhile go into the
      // same transaction, spreading its fixed cost over more blocks.
      for (let merged = 1; merged < batchesInFlight && inFlight[0]?.ready === true; merged++) batch.push(...await inFlight.shift()!.rows)
      fill()
      if (!isLinked(batch, parentHash)) throw new ReorgDetected()
      await storeBlocks(o.db, batch, latestBalances, fence)
      const top = batch[batch.length - 1]!.block
      parentHash = top.hash
      state.indexedHead = top.number
      // Near the head: what is left is stored incrementally, with every index in place.
      if (bulk && head - top.number <= batchBlocks) bulk = await finishBulk(fence)
      onStored(batch)
      events.emit('blocks', batch)
      if (nextToFetch > head) head = state.nodeHead = Math.max(head, await fetchHeadNumber(o.rpc, signal))
      // Let HTTP requests in between batches while backfilling.
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  /** Builds what a bulk load deferred; false, for `bulk`, once done. */
  async function finishBulk (fence: WriterFence): Promise<false> {
    const startedAt = performance.now()
    if (await finishBulkLoadConcurrently(o.db, fence)) o.log.info({ ms: Math.round(performance.now() - startedAt) }, 'bulk load finished: indexes and running sums built')
    return false
  }

  /** Fetch, decode, then read the state and token contracts the blocks touched. */
  async function fetchBatch (from: number, to: number, signal: AbortSignal): Promise<BlockRows[]> {
    const bundles = await fetchBlockBundles(o.rpc, from, to, signal)
    // Decoded a slice at a time, letting requests in between: parsing a
    // batch's answer and decoding all of it at once held the event loop for
    // tens of milliseconds during a backfill.
    const batch: BlockRows[] = []
    for (let i = 0; i < bundles.length; i += DECODE_SLICE_BLOCKS) {
      await new Promise((resolve) => setImmediate(resolve))
      for (const bundle of bundles.slice(i, i + DECODE_SLICE_BLOCKS)) batch.push(decodeBlockBundle(bundle))
    }
    const [state] = await Promise.all([fetchBlockStates(o.rpc, batch, signal), fetchTokens(o.rpc, batch, tokenCache, signal)])
    if (state.balances === 'sums refused') o.log.debug({ from, to }, 'coin balances read block by block: the blocks\' sums did not come to the node\'s')
    return batch
  }

  async function rollBackToCommonAncestor (from: number, fence: WriterFence): Promise<void> {
    const ancestor = await findCommonAncestor(from, async (f, t) => await readIndexedHashes(o.db, f, t), async (ns) => await fetchBlockHashes(o.rpc, ns))
    const removed = await deleteBlocksAbove(o.db, ancestor, fence)
    o.log.warn({ ancestor, removed_blocks: removed }, 'reorg: rolled back to the common ancestor')
    events.emit('reorg', { ancestor, removed })
  }

  return Object.assign(events, {
    start () {
      newHeads ??= watchNewHeads(o.wsUrl, o.log)
      running ??= run()
    },
    async stop () {
      controller.abort()
      await running
      newHeads?.close()
    },
    status: () => ({ ...state })
  })
}

/** Each block's parent must be the block before it, the first one's the stored head. */
function isLinked (batch: BlockRows[], parentHash: Hex | undefined): boolean {
  let expected = parentHash
  for (const { block } of batch) {
    if (expected !== undefined && block.parent_hash !== expected) return false
    expected = block.hash
  }
  return true
}
