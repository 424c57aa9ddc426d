// The Stats API's answers, each read at most once per REFRESH_MS and served
// from memory meanwhile, as the stats service serves figures it computed on
// its schedule (and as /api/v2/stats serves its counters): a front end polls
// the counters and the main page on every visit, and each read sums the daily
// rows and the last 24 hours' transactions. Only a key's first read is waited
// for; a stale answer is served while the next read runs (core/stats/refreshing.ts).
// An answer is kept as its JSON text: a year of daily points is 20 KB that
// would otherwise be serialised again for every request. A read that fails (a
// range over the points limit) is not kept: each request meets its error.
import { createRefreshing, type Refreshing } from '../../core/stats/refreshing.ts'

/** How stale a figure may be served: a block's figures show within this. */
export const REFRESH_MS = 5000
/** Distinct chart requests (chart, range, resolution) kept; past it the cache starts over. */
const MAX_KEYS = 1000

/** The content type of an answer sent as JSON text: Fastify sends such a string as it is. */
export const JSON_TYPE = 'application/json; charset=utf-8'

export type Answers = { json (key: string, read: () => Promise<object>): Promise<string> }

export function createAnswers (onError: (err: unknown, key: string) => void): Answers {
  const kept = new Map<string, Refreshing<string>>()
  return {
    async json (key, read) {
      let entry = kept.get(key)
      if (entry === undefined) {
        if (kept.size >= MAX_KEYS) kept.clear()
        entry = createRefreshing(async () => JSON.stringify(await read()), { maxAgeMs: REFRESH_MS, onError: (err) => onError(err, key) })
        kept.set(key, entry)
      }
      try {
        return (await entry.get()).value
      } catch (err) {
        kept.delete(key)
        throw err
      }
    }
  }
}
