// Answers to the requests an explorer's home page and lists repeat many times
// a block (the newest blocks and transactions, the stats, the hottest
// transactions and addresses), kept per indexed head: such an answer changes
// only when a block is indexed or rolled back, so until the head moves it can
// be sent again without reading the database, and a client or CDN that sends
// its tag back gets 304 Not Modified. A new head empties the cache at once.
// Nothing here knows HTTP servers: plugins/http-cache applies it to routes.
import type { IndexerEvents } from '../indexer/events.ts'
import { entityTag, type IndexedHead } from './etag.ts'
import { trackIndexedHead } from './indexed-head.ts'

export { matchesIfNoneMatch, type IndexedHead } from './etag.ts'

/**
 * The longest an answer is kept while the head stays: it bounds what can
 * change with no new block (a contract verified, token metadata read, the day
 * rolling over in the stats) and how long a reader instance that missed
 * commit notices serves an old head. A clique block comes every few seconds.
 */
export const ANSWER_MAX_AGE_MS = 10_000

export type CachedAnswer = { etag: string, body: string | Buffer, contentType: string, storedAtMs: number, bytes: number }

export type HttpCacheOptions = {
  events: IndexerEvents
  readHead: () => Promise<IndexedHead | undefined>
  /** Bytes of bodies (and keys) held at most; the oldest go first. */
  maxBytes: number
  now?: () => number
}

export type HttpCacheStats = { entries: number, bytes: number, hits: number, misses: number }

export type HttpCache = {
  /** The indexed head now (undefined while nothing is indexed: nothing is cached then). */
  head (): Promise<IndexedHead | undefined>
  /** The answer kept for `key` at `head`, while it is the current head and the answer is fresh. */
  find (head: IndexedHead, key: string): CachedAnswer | undefined
  /**
   * Tags the answer and keeps it, unless the head moved on while it was made
   * or the cache was cleared since `generation` (read when it was begun).
   */
  keep (head: IndexedHead, key: string, body: string | Buffer, contentType: string, generation?: number): CachedAnswer
  /** Counts clear()s: an answer begun before one is not kept. */
  generation (): number
  /** Drops every answer: what they show changed without the head moving (a contract verified). */
  clear (): void
  stats (): HttpCacheStats
  close (): void
}

export function createHttpCache ({ events, readHead, maxBytes, now = Date.now }: HttpCacheOptions): HttpCache {
  const tracker = trackIndexedHead({ events, readHead })
  // Insertion order is age order: the oldest answer is the first key.
  const answers = new Map<string, CachedAnswer>()
  let heldFor: string | undefined
  let bytes = 0
  let hits = 0
  let misses = 0
  let generation = 0

  const forget = (key: string): void => {
    const answer = answers.get(key)
    if (answer === undefined) return
    answers.delete(key)
    bytes -= answer.bytes
  }
  tracker.onChange((head) => {
    answers.clear()
    bytes = 0
    heldFor = head?.hash
  })

  return {
    head: async () => await tracker.current(),
    find (head, key) {
      const answer = heldFor === head.hash ? answers.get(key) : undefined
      if (answer !== undefined && now() - answer.storedAtMs <= ANSWER_MAX_AGE_MS) {
        hits++
        return answer
      }
      misses++
      if (answer !== undefined) forget(key)
      return undefined
    },
    keep (head, key, body, contentType, begunAt = generation) {
      const answer: CachedAnswer = { etag: entityTag(head, key, body), body, contentType, storedAtMs: now(), bytes: Buffer.byteLength(body) + key.length }
      // Made at a head since replaced, or before a clear(): tagged for its requester, not kept.
      if (heldFor !== head.hash || begunAt !== generation || answer.bytes > maxBytes) return answer
      forget(key)
      answers.set(key, answer)
      bytes += answer.bytes
      for (const oldest of answers.keys()) {
        if (bytes <= maxBytes) break
        forget(oldest)
      }
      return answer
    },
    generation: () => generation,
    clear () {
      generation++
      answers.clear()
      bytes = 0
    },
    stats: () => ({ entries: answers.size, bytes, hits, misses }),
    close: () => tracker.close()
  }
}
