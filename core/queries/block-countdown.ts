// Blockscout's Etherscan-style block countdown: how many blocks until a given
// one, and how long at the recent pace. The pace is the average block time
// over the newest blocks, as Blockscout's AverageBlockTime takes it.
import type { Knex } from 'knex'
import { PACE_BLOCKS } from '../stats/chain-stats.ts'

export type BlockCountdown =
  | { kind: 'countdown', currentBlock: number, countdownBlock: bigint, remainingBlocks: bigint, estimateTimeS: number }
  /** Fewer than two blocks indexed: no pace to count with. */
  | { kind: 'indexing' }
  /** The block is already sealed (or is the newest one). */
  | { kind: 'passed' }

const PACE_SQL = `
  with newest as (select number, timestamp from blocks order by number desc limit ${PACE_BLOCKS})
  select max(number)::float8 as head, count(*)::int as blocks,
    case when count(*) < 2 then null else extract(epoch from max(timestamp) - min(timestamp)) / (count(*) - 1) end::float8 as block_time_s
  from newest`

export async function readBlockCountdown (db: Knex, target: bigint): Promise<BlockCountdown> {
  const { rows: [row] } = await db.raw<{ rows: Array<{ head: number | null, blocks: number, block_time_s: number | null }> }>(PACE_SQL)
  if (row === undefined || row.head === null || row.block_time_s === null) return { kind: 'indexing' }
  const remaining = target - BigInt(row.head)
  if (remaining <= 0n) return { kind: 'passed' }
  return {
    kind: 'countdown',
    currentBlock: row.head,
    countdownBlock: target,
    remainingBlocks: remaining,
    // Tenths of a second, as Blockscout rounds it.
    estimateTimeS: Math.round(Number(remaining) * row.block_time_s * 10) / 10
  }
}
