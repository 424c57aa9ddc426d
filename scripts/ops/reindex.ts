// `ops reindex --from N`: one writer at all times. The blocks go under the
// indexer lock, so no gateway is writing meanwhile; then the indexer itself
// (which takes the lock on its own connection) indexes up to the node's head.
import { setTimeout as sleep } from 'node:timers/promises'
import type { Knex } from 'knex'
import { IndexerBusyError, ReindexFailedError } from '../../core/errors.ts'
import { createIndexer } from '../../core/indexer/index.ts'
import { fetchHeadNumber } from '../../core/indexer/fetch.ts'
import { tryAcquireIndexerLock } from '../../core/indexer/lock.ts'
import { deleteBlocksAbove, readIndexedHead } from '../../core/indexer/store.ts'
import type { OpsCommandContext } from './command.ts'

const STATUS_POLL_MS = 100

export type ReindexArgs = { from: number }

export async function runReindex ({ ops, log, out, signal }: OpsCommandContext, { from }: ReindexArgs): Promise<number> {
  out(`reindex: ${ops.source}`)
  // Interrupted while Geth or PostgreSQL were starting: delete nothing.
  signal.throwIfAborted()
  const lock = await tryAcquireIndexerLock(ops.databaseUrl)
  if (lock === undefined) throw new IndexerBusyError('reindex')
  try {
    const removed = await countRowsFrom(ops.db, from)
    await deleteBlocksAbove(ops.db, from - 1, lock)
    out(removed.blocks === 0
      ? `no indexed blocks from ${from} up: nothing deleted`
      : `deleted blocks ${from}..${removed.top}: ${removed.blocks} blocks, ${removed.transactions} transactions, ${removed.logs} logs, ${removed.internal} internal transactions`)
  } finally {
    // A session lock is not shared with the indexer's own connection: it has to go first.
    await lock.release()
  }
  const below = await countBlocksBelow(ops.db, from)
  if (below < from) out(`warning: the index lacks ${from - below} of blocks 0..${from - 1}; the indexer goes on from the highest one, so reindex from lower to fill them`)
  const target = await fetchHeadNumber(ops.rpc, signal)
  const resumeAt = ((await readIndexedHead(ops.db))?.number ?? -1) + 1
  if (resumeAt > target) {
    out(`nothing to index: the index already reaches the node's head ${target}`)
    return 0
  }
  return await indexUpTo(target, resumeAt, { ops, log, out, signal })
}

/** Runs the indexer until it has stored the node's head as it was when we began. */
async function indexUpTo (target: number, resumeAt: number, { ops, log, out, signal }: OpsCommandContext): Promise<number> {
  const indexer = createIndexer({ db: ops.db, databaseUrl: ops.databaseUrl, rpc: ops.rpc, log: log.child({ name: 'indexer' }) })
  let transactions = 0
  indexer.events.subscribe((event) => {
    if (event.type === 'block') transactions += event.blocks.reduce((n, b) => n + b.transactions.length, 0)
  })
  const startedAt = Date.now()
  indexer.start()
  try {
    for (;;) {
      const { role, indexedHead } = indexer.status()
      if (indexedHead !== null && indexedHead >= target) break
      if (role === 'failed') throw new ReindexFailedError(String(indexedHead ?? resumeAt - 1), 'the indexer met an error retrying cannot fix (logged above)')
      if (role === 'reader') {
        // Between our release and the indexer's own attempt a gateway started and took the lock: it carries on from here.
        out(`another process (a gateway?) took the indexer lock; it indexes from block ${(indexedHead ?? resumeAt - 1) + 1} on`)
        return 0
      }
      await sleep(STATUS_POLL_MS, undefined, { signal })
    }
  } finally {
    await indexer.stop()
  }
  const head = indexer.status().indexedHead!
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1)
  out(`indexed blocks ${resumeAt}..${head}: ${head - resumeAt + 1} blocks, ${transactions} transactions in ${seconds} s`)
  return 0
}

type Removed = { top: number, blocks: number, transactions: number, logs: number, internal: number }

async function countRowsFrom (db: Knex, from: number): Promise<Removed> {
  const { rows } = await db.raw(`
    select (select max(number) from blocks where number >= :from) as top,
           (select count(*) from blocks where number >= :from) as blocks,
           (select count(*) from transactions where block_number >= :from) as transactions,
           (select count(*) from logs where block_number >= :from) as logs,
           (select count(*) from internal_transactions where block_number >= :from) as internal`, { from })
  const row = rows[0]
  return { top: Number(row.top), blocks: Number(row.blocks), transactions: Number(row.transactions), logs: Number(row.logs), internal: Number(row.internal) }
}

async function countBlocksBelow (db: Knex, from: number): Promise<number> {
  const row = await db('blocks').where('number', '<', from).count({ n: '*' }).first()
  return Number(row?.n ?? 0)
}
