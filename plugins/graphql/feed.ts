// Feeds subscriptions from the indexer: after each commit the indexer
// publishes a block event with the stored rows, which are published as they
// are (the row shapes the resolvers read), so a subscriber hears of a block
// without the database being polled. On an instance that does not index, the
// rows come from the writer's commit notices (core/indexer/commit-feed.ts),
// in the same event. Nested fields (a transaction's block...) go through loaders.
import type { IndexerEvents } from '../../core/indexer/events.ts'
import type { CommittedBlock, TokenTransferRow } from '../../core/indexer/types.ts'
import { TOPICS } from './resolvers/topics.ts'

type Publish = (event: { topic: string, payload: unknown }) => void

export function publishBlocks (publish: Publish, batch: CommittedBlock[]): void {
  for (const { block, transactions, tokenTransfers } of batch) {
    const { extra_data: _extra, ...blockRecord } = block
    publish({ topic: TOPICS.newBlock, payload: { newBlock: blockRecord } })
    for (const transaction of transactions) {
      publish({ topic: TOPICS.newTransaction, payload: { newTransaction: { ...transaction, block_hash: block.hash } } })
    }
    const byToken = new Map<string, TokenTransferRow[]>()
    for (const transfer of tokenTransfers) {
      const token = transfer.token_address.toLowerCase()
      byToken.set(token, [...byToken.get(token) ?? [], transfer])
    }
    for (const [token, transfers] of byToken) publish({ topic: TOPICS.tokenTransfers(token), payload: { tokenTransfers: transfers } })
  }
}

/** Publishes every batch the indexer commits until the returned function is called. */
export function feedSubscriptions (events: IndexerEvents, publish: Publish): () => void {
  // A reorg has no subscription of its own: the new branch's blocks follow as block events.
  return events.subscribe((event) => {
    if (event.type === 'block') publishBlocks(publish, event.blocks)
  })
}
