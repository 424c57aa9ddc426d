// Blockscout's indexing status: how much of the chain the index holds. Blocks
// are indexed with their internal transactions, so both ratios move together.
//
// Blockscout judges by what is missing below the tip: its realtime fetcher
// stores the newest blocks first and the ratio is the stored count over the
// stored range, so a block sealed a moment ago and not in yet does not count.
// Ours follows the chain forward, so the tip is the node's head less the few
// blocks a following indexer is normally behind (TIP_LAG_BLOCKS): a backfill
// far behind reads as unfinished, a sub-second lag at the tip does not.
import type { QueryDb } from '../sql/query-db.ts'

/** Blocks the indexer may trail the node's head by and still count as caught up. */
export const TIP_LAG_BLOCKS = 5
/** Blockscout rounds a ratio of at least 0.99 up to 1 once the first block is in. */
const NEARLY_ALL = 0.99

export type IndexingStatus = {
  finished_indexing: boolean
  finished_indexing_blocks: boolean
  /** Decimal strings, as Blockscout sends them ("0.42", "1"). */
  indexed_blocks_ratio: string
  indexed_internal_transactions_ratio: string | null
}

export type StoredBlocks = {
  count: number
  /** Lowest and highest stored numbers; null when none is stored. */
  lowest: number | null
  highest: number | null
}

/** The status for what is stored and the node's head (pure). */
export function indexingStatus (stored: StoredBlocks, nodeHead: number): IndexingStatus {
  const tip = Math.max(stored.highest ?? -1, nodeHead - TIP_LAG_BLOCKS)
  const expected = tip + 1
  const raw = expected <= 0 ? 1 : stored.count / expected
  const ratio = raw >= NEARLY_ALL && stored.lowest === 0 ? 1 : Math.min(1, Math.floor(raw * 100) / 100)
  const finished = ratio === 1
  return {
    finished_indexing: finished,
    finished_indexing_blocks: finished,
    indexed_blocks_ratio: finished ? '1' : ratio.toFixed(2),
    indexed_internal_transactions_ratio: finished ? '1' : null
  }
}

export async function readIndexingStatus (db: QueryDb, nodeHead: number): Promise<IndexingStatus> {
  const { rows: [row] } = await db.knex.raw<{ rows: Array<{ count: number, lowest: number | null, highest: number | null }> }>(
    'select count(*)::float8 as count, min(number)::float8 as lowest, max(number)::float8 as highest from blocks')
  return indexingStatus({ count: row?.count ?? 0, lowest: row?.lowest ?? null, highest: row?.highest ?? null }, nodeHead)
}
