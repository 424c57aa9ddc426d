// Waiting for an indexer to store a given block: its `block` event (after
// commit) gives the moment; its status catches a failed or stalled indexer.
import type { Indexer, IndexerEvent } from '../../../core/indexer/index.ts'

const STATUS_POLL_MS = 250
/** No new block stored for this long while behind: retrying something that will not pass. */
const STALL_MS = 90_000

export type WaitOptions = { timeoutMs: number, lastWarning?: () => string | undefined }

/** Resolves with performance.now() at the commit that made `head` stored. */
export async function waitForIndexed (indexer: Indexer, head: number, { timeoutMs, lastWarning }: WaitOptions): Promise<number> {
  return await new Promise<number>((resolve, reject) => {
    let progressAt = performance.now()
    let indexed = indexer.status().indexedHead
    const why = (): string => {
      const warning = lastWarning?.()
      return `status ${JSON.stringify(indexer.status())}${warning === undefined ? '' : `; last warning: ${warning}`}`
    }
    const finish = (error: Error | undefined, at = performance.now()): void => {
      unsubscribe()
      clearInterval(poll)
      clearTimeout(timeout)
      if (error === undefined) resolve(at)
      else reject(error)
    }
    const onEvent = (event: IndexerEvent): void => {
      if (event.type === 'block' && event.blocks[event.blocks.length - 1]!.block.number >= head) finish(undefined)
    }
    const poll = setInterval(() => {
      const status = indexer.status()
      if (status.role === 'failed') return finish(new Error(`the indexer failed: ${why()}`))
      if (status.indexedHead !== null && status.indexedHead >= head) return finish(undefined)
      if (status.indexedHead !== indexed) {
        indexed = status.indexedHead
        progressAt = performance.now()
      } else if (performance.now() - progressAt > STALL_MS) {
        finish(new Error(`the indexer stored nothing for ${STALL_MS / 1000} s short of block ${head}: ${why()}`))
      }
    }, STATUS_POLL_MS)
    const timeout = setTimeout(() => finish(new Error(`the indexer did not reach block ${head} within ${timeoutMs / 1000} s: ${why()}`)), timeoutMs)
    const unsubscribe = indexer.events.subscribe(onEvent)
    // Already there (an earlier wait or a tiny chain).
    const status = indexer.status()
    if (status.indexedHead !== null && status.indexedHead >= head) finish(undefined)
  })
}
