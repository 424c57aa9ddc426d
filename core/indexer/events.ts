// What the indexer tells the rest of the gateway: a typed union, one shape
// whatever this instance's role. The writer publishes the blocks it stored;
// a reader publishes the writer's blocks as it reads them back after each
// commit notice (commit-feed.ts), so a subscriber (GraphQL, the Phoenix
// socket, metrics, the NFT metadata fetcher) cannot tell which instance it is
// on, and none of them may rely on rows only the writer holds.
import type { Logger } from '../logger.ts'
import type { CommittedBlock } from './types.ts'

/**
 * Blocks one commit stored, lowest first: a batch while backfilling, usually
 * one block at the head. `storedHere` says this instance wrote them (it is
 * the writer) rather than heard of another instance's commit: work that must
 * run once per block across instances (metrics of indexing, NFT metadata
 * reads) keys on it.
 */
export type BlockEvent = { type: 'block', blocks: CommittedBlock[], storedHere: boolean }

/** The index was rolled back: blocks above `ancestor` are gone (`removed` of them) and the new branch follows as block events. */
export type ReorgEvent = { type: 'reorg', ancestor: number, removed: number, storedHere: boolean }

export type IndexerEvent = BlockEvent | ReorgEvent

export type IndexerListener = (event: IndexerEvent) => void

export type IndexerEvents = {
  /** Calls `listener` with every event from now on, in order; returns the function that stops it. */
  subscribe (listener: IndexerListener): () => void
  publish (event: IndexerEvent): void
  /** Whether anyone listens: a reader reads the writer's rows back only then. */
  hasListeners (): boolean
}

export function createIndexerEvents (log: Logger): IndexerEvents {
  const listeners = new Set<IndexerListener>()
  return {
    subscribe (listener) {
      // A wrapper of its own: one function subscribed twice is two subscriptions, each ended by its own call.
      const entry: IndexerListener = (event) => listener(event)
      listeners.add(entry)
      return () => { listeners.delete(entry) }
    },
    publish (event) {
      // A listener's failure is its own: it must not stop the indexer's loop
      // that published, nor keep the listeners after it from hearing.
      for (const listener of [...listeners]) {
        try {
          listener(event)
        } catch (err) {
          log.error({ err, event: event.type }, 'an indexer event listener failed')
        }
      }
    },
    hasListeners: () => listeners.size > 0
  }
}

/** The next event of `type`, for scripts and tests that wait on the indexer. */
export async function nextEvent<T extends IndexerEvent['type']> (events: IndexerEvents, type: T, signal?: AbortSignal): Promise<Extract<IndexerEvent, { type: T }>> {
  return await new Promise((resolve, reject) => {
    const onAbort = (): void => { unsubscribe(); reject(signal!.reason) }
    const unsubscribe = events.subscribe((event) => {
      if (event.type !== type) return
      unsubscribe()
      signal?.removeEventListener('abort', onAbort)
      resolve(event as Extract<IndexerEvent, { type: T }>)
    })
    if (signal?.aborted === true) onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** The part of the writer's decoded rows every instance can publish (a reader reads back this much). */
export function toCommittedBlock ({ block, transactions, tokenTransfers }: CommittedBlock): CommittedBlock {
  return { block, transactions, tokenTransfers }
}
