// The Stats API's answers, each read at most once per REFRESH_MS and served
// from memory meanwhile, as the stats service serves figures it computed on
// its schedule (and as /api/v2/stats serves its counters): a front end polls
// the counters and the main page on every visit, and each read sums the daily
// rows and the last 24 hours' transactions. An answer past REFRESH_MS is
// served while the next read runs (core/stats/refreshing.ts), but none older
// than MAX_AGE_MS: after a quiet spell the first request waits for the read.
// An answer is kept as the bytes sent, and gzipped once beside them: a year
// of daily points is 21 KB, which costs both ends more to send and receive
// than the request costs to route (bench:stats), and 2 KB gzipped. A read
// that fails (a range over the points limit) is not kept: each request meets
// its error.
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import { createRefreshing, type Refreshing } from '../../core/stats/refreshing.ts'

/** The oldest answer served: a new block's figures show within this (docs/stats-api.md). */
export const MAX_AGE_MS = 5000
/** An answer this old starts the next read, served meanwhile: a client polling within MAX_AGE_MS never waits. */
export const REFRESH_MS = MAX_AGE_MS / 2
/** Distinct chart requests (chart, range, resolution) kept; past it the cache starts over. */
const MAX_KEYS = 1000
/** Smaller answers go as they are: gzip's header and the decompression would outweigh the bytes saved. */
export const MIN_GZIP_BYTES = 1024

/** The content type of an answer sent as bytes: Fastify sends a Buffer as it is. */
export const JSON_TYPE = 'application/json; charset=utf-8'

/** An answer's JSON, and the same gzipped when it is worth it. */
export type Answer = { json: Buffer, gzip: Buffer | undefined }

export type Answers = {
  get (key: string, read: () => Promise<object>): Promise<Answer>
  /** The answer kept for `key` now (stale ones start their next read; none past MAX_AGE_MS), without a promise: the hot path. */
  peek (key: string): Answer | undefined
}

const gzipAsync = promisify(gzip)

async function encode (value: object): Promise<Answer> {
  const json = Buffer.from(JSON.stringify(value))
  return { json, gzip: json.length < MIN_GZIP_BYTES ? undefined : await gzipAsync(json) }
}

export function createAnswers (onError: (err: unknown, key: string) => void): Answers {
  const kept = new Map<string, Refreshing<Answer>>()
  return {
    async get (key, read) {
      let entry = kept.get(key)
      if (entry === undefined) {
        if (kept.size >= MAX_KEYS) kept.clear()
        entry = createRefreshing(async () => await encode(await read()), {
          maxAgeMs: REFRESH_MS, maxServedAgeMs: MAX_AGE_MS, onError: (err) => onError(err, key)
        })
        kept.set(key, entry)
      }
      try {
        return (await entry.get()).value
      } catch (err) {
        kept.delete(key)
        throw err
      }
    },
    peek: (key) => kept.get(key)?.peek()?.value
  }
}

/** Whether an Accept-Encoding header takes gzip (named, or `*`, with a q above 0). */
export function acceptsGzip (header: string | undefined): boolean {
  if (header === undefined) return false
  for (const entry of header.split(',')) {
    const [name = '', ...params] = entry.split(';')
    const coding = name.trim().toLowerCase()
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') continue
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='))
    return q === undefined || Number(q.slice(2)) > 0
  }
  return false
}
