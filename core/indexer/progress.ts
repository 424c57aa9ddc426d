// Backfill progress in the log: blocks/s, the block reached, lag and ETA.
import type { Logger } from '../logger.ts'
import type { BlockRows } from './types.ts'

const REPORT_EVERY_MS = 5000

export function createProgress (log: Logger) {
  let windowStart = Date.now()
  let blocks = 0
  let transactions = 0
  return {
    record (batch: BlockRows[], nodeHead: number): void {
      blocks += batch.length
      transactions += batch.reduce((n, b) => n + b.transactions.length, 0)
      const elapsedMs = Date.now() - windowStart
      if (elapsedMs < REPORT_EVERY_MS) return
      const reached = batch[batch.length - 1]!.block.number
      const lag = Math.max(0, nodeHead - reached)
      const blocksPerS = blocks / (elapsedMs / 1000)
      // Quiet once caught up: following the head is not news.
      if (lag > batch.length) {
        log.info({
          block: reached,
          head: nodeHead,
          lag_blocks: lag,
          blocks_per_s: Math.round(blocksPerS * 10) / 10,
          transactions_per_s: Math.round(transactions / (elapsedMs / 1000)),
          eta_s: blocksPerS > 0 ? Math.round(lag / blocksPerS) : null
        }, 'backfilling')
      }
      windowStart = Date.now()
      blocks = 0
      transactions = 0
    }
  }
}
