// The newest indexed block as this instance knows it, for the head-keyed
// cache (index.ts). Every instance hears every commit and rollback through the
// indexer's events (the writer its own, readers the writer's commit notices),
// so a block event names the new head at once; after a rollback, at start,
// and whenever a read races an event, the head is read from the database.
import type { IndexerEvents } from '../indexer/events.ts'
import type { IndexedHead } from './etag.ts'

export type IndexedHeadTracker = {
  /** The head now; undefined while nothing is indexed. */
  current (): Promise<IndexedHead | undefined>
  /** Called with each new head (after a change only). */
  onChange (listener: (head: IndexedHead | undefined) => void): void
  close (): void
}

export type IndexedHeadOptions = {
  events: IndexerEvents
  /** The head as stored (core/indexer/store.ts readIndexedHead). */
  readHead: () => Promise<IndexedHead | undefined>
}

export function trackIndexedHead ({ events, readHead }: IndexedHeadOptions): IndexedHeadTracker {
  let known: IndexedHead | undefined
  let isKnown = false
  // Bumped by every event: a read from the database begun before one must not overwrite what it told.
  let version = 0
  let reading: Promise<IndexedHead | undefined> | undefined
  const listeners: Array<(head: IndexedHead | undefined) => void> = []

  /** `certain` false: the head must be read before it is used again. */
  const set = (head: IndexedHead | undefined, certain = true): void => {
    const changed = known?.hash !== head?.hash
    known = head
    isKnown = certain
    if (changed) for (const listener of listeners) listener(head)
  }

  const stop = events.subscribe((event) => {
    version++
    reading = undefined
    if (event.type === 'reorg') {
      // The ancestor's hash is not in the event: the next request reads it.
      set(undefined, false)
      return
    }
    const top = event.blocks[event.blocks.length - 1]
    if (top !== undefined) set({ number: top.block.number, hash: top.block.hash })
  })

  return {
    async current () {
      if (isKnown) return known
      if (reading === undefined) {
        const at = version
        const read = readHead().then((head) => {
          if (version === at) set(head)
          return head
        }).finally(() => { if (reading === read) reading = undefined })
        reading = read
      }
      return await reading
    },
    onChange: (listener) => { listeners.push(listener) },
    close: stop
  }
}
