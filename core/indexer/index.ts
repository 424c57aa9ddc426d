// The indexer: follows the node into the database on the instance that holds
// the indexer lock, and publishes every committed block (and rollback) on
// every instance. The parts, one file each: role.ts (writer or reader),
// writer.ts (the writer's loop over follow.ts: fetch, decode, store),
// reader.ts (a reader hears the writer's commits) and events.ts (what
// subscribers hear).
import { setMaxListeners } from 'node:events'
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import type { RpcClient } from '../rpc/client.ts'
import { createIndexerEvents, type IndexerEvents } from './events.ts'
import { fetchHeadNumber } from './fetch.ts'
import { createLatestBalances } from './latest-balances.ts'
import { watchNewHeads, type NewHeads } from './new-heads.ts'
import { createCommitHearing } from './reader.ts'
import { runRoles, type IndexerRole } from './role.ts'
import { readIndexedHead } from './store.ts'
import type { TokenMetadataCache } from './tokens.ts'
import type { BlockRows } from './types.ts'
import { indexAsWriter, type WriterOptions } from './writer.ts'

export type { IndexerRole } from './role.ts'
export type { BlockEvent, IndexerEvent, IndexerEvents, ReorgEvent } from './events.ts'

/** `enabled` false: INDEXER_ENABLED=false, this instance never writes (its role stays 'reader'). */
export type IndexerStatus = { role: IndexerRole, enabled: boolean, indexedHead: number | null, nodeHead: number | null }

export type Indexer = {
  /** Every committed batch of blocks and every rollback, whatever this instance's role (events.ts). */
  events: IndexerEvents
  start (): void
  stop (): Promise<void>
  status (): IndexerStatus
}

export type IndexerOptions = {
  db: Knex
  /** For the advisory lock's and the commit feed's own connections. */
  databaseUrl: string
  rpc: RpcClient
  /** Geth's WebSocket endpoint for newHeads; polling only when undefined. */
  wsUrl?: string
  log: Logger
  /** false: never take the indexer lock nor write; serve reads and hear the writer's commits (default true). */
  enabled?: boolean
  batchBlocks?: number
  batchesInFlight?: number
  headPollMs?: number
  /** A backfill this many blocks behind or more bulk-loads (bulk-load.ts); 0 never. */
  bulkLoadMinBlocks?: number
  /** Each batch's decoded rows as the writer stored them (bench:indexer replays them); subscribers use `events`. */
  onBatchStored?: (batch: BlockRows[]) => void
}

export function createIndexer (o: IndexerOptions): Indexer {
  const events = createIndexerEvents(o.log)
  const controller = new AbortController()
  // Every fetch in flight listens on it: more than Node's default of ten is expected.
  setMaxListeners(100, controller.signal)
  const state: IndexerStatus = { role: 'starting', enabled: o.enabled ?? true, indexedHead: null, nodeHead: null }
  const hearing = createCommitHearing({ db: o.db, databaseUrl: o.databaseUrl, log: o.log, events, onHead: (head) => { state.indexedHead = head } })
  // Kept across tenures: token metadata does not change with the writer.
  const tokenCache: TokenMetadataCache = new Map()
  const latestBalances = createLatestBalances()
  let newHeads: NewHeads | undefined
  let running: Promise<void> | undefined

  /** A reader's turn: listen for the writer's commits and keep the status fresh for /health. */
  async function read (signal: AbortSignal): Promise<void> {
    await hearing.listen().catch((err: Error) => o.log.warn({ err: err.message }, 'cannot listen for the writer\'s commits; trying again'))
    state.indexedHead = (await readIndexedHead(o.db))?.number ?? null
    state.nodeHead = await fetchHeadNumber(o.rpc, signal).catch(() => state.nodeHead)
  }

  async function run (heads: NewHeads): Promise<void> {
    const writer: WriterOptions = {
      db: o.db,
      rpc: o.rpc,
      log: o.log,
      events,
      newHeads: heads,
      tokenCache,
      latestBalances,
      progress: state,
      batchBlocks: o.batchBlocks,
      batchesInFlight: o.batchesInFlight,
      headPollMs: o.headPollMs,
      bulkLoadMinBlocks: o.bulkLoadMinBlocks,
      onBatchStored: o.onBatchStored
    }
    await runRoles({
      databaseUrl: o.databaseUrl,
      log: o.log,
      mayWrite: state.enabled,
      role: () => state.role,
      setRole: (role) => { state.role = role },
      write: async (fence, signal, onStored) => await indexAsWriter(writer, fence, signal, onStored),
      read,
      stopReading: async () => await hearing.close()
    }, controller.signal)
    // A failed run leaves the listener open (it may still serve subscribers): stop() closes it.
  }

  return {
    events,
    start () {
      // No newHeads socket on an instance that never writes: only the writer waits for heads.
      newHeads ??= watchNewHeads(state.enabled ? o.wsUrl : undefined, o.log)
      running ??= run(newHeads)
    },
    async stop () {
      controller.abort()
      await running
      await hearing.close()
      newHeads?.close()
    },
    status: () => ({ ...state })
  }
}
