// Blockscout's indexing status: how much of the chain the index holds. Blocks
// are indexed with their internal transactions, so both ratios move together.
import type { Knex } from 'knex'

export type IndexingStatus = {
  finished_indexing: boolean
  finished_indexing_blocks: boolean
  /** Decimal strings, as Blockscout sends them ("0.42", "1"). */
  indexed_blocks_ratio: string
  indexed_internal_transactions_ratio: string | null
}

export async function readIndexingStatus (db: Knex, nodeHead: number): Promise<IndexingStatus> {
  const row = await db('blocks').count({ n: '*' }).first()
  const indexed = Number(row?.n ?? 0)
  const total = nodeHead + 1
  const finished = indexed >= total
  // Rounded down: "1" only when every block is in.
  const ratio = finished ? '1' : (Math.floor((indexed / total) * 100) / 100).toFixed(2)
  return {
    finished_indexing: finished,
    finished_indexing_blocks: finished,
    indexed_blocks_ratio: ratio,
    indexed_internal_transactions_ratio: finished ? '1' : null
  }
}
