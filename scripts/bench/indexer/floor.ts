// The floor: only fetching every block 0..head with the indexer's own fetch
// stage, the indexer's batch size and number of batches in flight, and
// nothing else. A backfill cannot be faster than the node can answer.
import { fetchBlockBundles } from '../../../core/indexer/fetch.ts'
import type { RpcClient } from '../../../core/rpc/client.ts'

export type FloorResult = { ms: number, blocks: number, transactions: number }

export type FloorOptions = { rpc: RpcClient, head: number, batchBlocks: number, batchesInFlight: number }

/** Keeps `batchesInFlight` fetches going at all times (the indexer's best case: it never waits for its store). */
export async function measureFloor ({ rpc, head, batchBlocks, batchesInFlight }: FloorOptions): Promise<FloorResult> {
  let next = 0
  let blocks = 0
  let transactions = 0
  const startedAt = performance.now()
  const lane = async (): Promise<void> => {
    while (next <= head) {
      const from = next
      const to = Math.min(from + batchBlocks - 1, head)
      next = to + 1
      const bundles = await fetchBlockBundles(rpc, from, to)
      blocks += bundles.length
      for (const { block } of bundles) transactions += block.transactions.length
    }
  }
  await Promise.all(Array.from({ length: batchesInFlight }, lane))
  return { ms: performance.now() - startedAt, blocks, transactions }
}
