// Blockscout's Etherscan-style block countdown: how many blocks until a given
// one, and how long at the recent pace (core/queries/blocks/block-pace.ts).
import { readBlockPace } from './block-pace.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type BlockCountdown =
  | { kind: 'countdown', currentBlock: number, countdownBlock: bigint, remainingBlocks: bigint, estimateTimeS: number }
  /** Fewer than two blocks indexed: no pace to count with. */
  | { kind: 'indexing' }
  /** The block is already sealed (or is the newest one). */
  | { kind: 'passed' }

export async function readBlockCountdown (db: QueryDb, target: bigint): Promise<BlockCountdown> {
  const { head, blockTimeMs } = await readBlockPace(db)
  if (head === null || blockTimeMs === null) return { kind: 'indexing' }
  const remaining = target - BigInt(head)
  if (remaining <= 0n) return { kind: 'passed' }
  return {
    kind: 'countdown',
    currentBlock: head,
    countdownBlock: target,
    remainingBlocks: remaining,
    // Tenths of a second, as Blockscout rounds it.
    estimateTimeS: Math.round(Number(remaining) * blockTimeMs / 100) / 10
  }
}
