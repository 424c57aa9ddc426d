// The read model's answers on the activity chain (test/support/answers.ts):
// at least 200 of them, over REST, GraphQL, the Etherscan-style API and the
// Phoenix socket, none a server error. With ANSWERS_OUT set to a directory,
// they are written to a file there named for this checkout (one line each):
// run this file and its copy in a checkout of the old code in one tap run
// (they share the chain template) and compare the two files byte for byte
// (scripts/compare-answers.ts does it). They are recorded
// once, on a fresh copy of the chain: a transaction summary is kept once made
// (core/interpreter/cache.ts, a jsonb column) and read back in jsonb's key
// order, so a second recording differs there.
//
// The read model answers in one encoding (core/rows.ts): 0x-hex text and
// epoch numbers, never pg's Buffers and Dates, so that no presenter handles
// two. Every query the routes call while recording is watched, and a Buffer or
// a Date anywhere in what one returns fails here; the types say the same to
// tsc. The old code's copy (ANSWERS_BASELINE names its checkout) is recorded,
// not held to this.
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { buildActivityChain } from '../support/activity-chain.ts'
import { recordAnswers, writeAnswers } from '../support/answers.ts'
import type { Queries } from '../../core/queries/index.ts'

/** The paths within T at which a Buffer or a Date can sit (never when none can). */
type BytesOrDates<T, Path extends string = ''> = T extends Buffer | Date ? Path
  : T extends ReadonlyArray<infer Item> ? BytesOrDates<Item, `${Path}[]`>
    : T extends ReadonlyMap<unknown, infer Value> ? BytesOrDates<Value, `${Path}.get()`>
      : T extends object ? { [K in keyof T & string]: BytesOrDates<T[K], `${Path}.${K}`> }[keyof T & string]
        : never
/** The queries (nested groups too) whose results can hold a Buffer or a Date, with where. */
type QueriesWithBytesOrDates<Q, Prefix extends string = ''> = {
  [K in keyof Q & string]: Q[K] extends (...args: any[]) => infer R ? BytesOrDates<Awaited<R>, `${Prefix}${K}()`> : QueriesWithBytesOrDates<Q[K], `${Prefix}${K}.`>
}[keyof Q & string]
// tsc fails here naming each query whose result type holds a Buffer or a Date.
const resultTypesHoldNone: [QueriesWithBytesOrDates<Queries>] extends [never] ? true : QueriesWithBytesOrDates<Queries> = true

/** Where in `value` a Buffer or a Date sits. */
function findBytesOrDates (value: unknown, path: string, found: string[]): void {
  if (Buffer.isBuffer(value) || value instanceof Date) found.push(path)
  else if (Array.isArray(value)) value.forEach((v, i) => findBytesOrDates(v, `${path}[${i}]`, found))
  else if (value instanceof Map) for (const [k, v] of value) findBytesOrDates(v, `${path}.get(${String(k)})`, found)
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) findBytesOrDates(v, `${path}.${k}`, found)
}

/** Wraps each query of `queries` (in place: plugins keep the object) to note what its results hold; returns the notes. */
function watchQueries (queries: Record<string, any>, prefix = '', seen = { calls: 0, found: [] as string[] }) {
  for (const [name, query] of Object.entries(queries)) {
    if (typeof query !== 'function') {
      watchQueries(query, `${prefix}${name}.`, seen)
      continue
    }
    queries[name] = async (...args: unknown[]) => {
      const result = await query(...args)
      seen.calls++
      findBytesOrDates(result, `${prefix}${name}()`, seen.found)
      return result
    }
  }
  return seen
}

/** This checkout's directory as a file name (/srv/gateway: srv+gateway). */
const checkout = fileURLToPath(new URL('../..', import.meta.url)).split('/').filter(Boolean).join('+')

const { app, wallets, head, contracts, payees } = await buildActivityChain(t)
const { port } = app.server.address() as { port: number }
const url = `http://127.0.0.1:${port}`
const chain = { head, accounts: wallets.map((w) => w.address), contracts, payees }

t.test('the read routes answer the recorded requests, from queries that return no Buffer and no Date', async (t) => {
  const watched = process.env.ANSWERS_BASELINE === checkout ? undefined : watchQueries(app.queries)
  const answers = await recordAnswers(app, url, chain)
  if (process.env.ANSWERS_OUT !== undefined) await writeAnswers(join(process.env.ANSWERS_OUT, `${checkout}.txt`), answers)
  t.ok(answers.length >= 200, `${answers.length} answers`)
  const families = (prefix: string) => answers.filter((a) => a.request.startsWith(prefix)).length
  t.ok(families('GET /api/v2/') > 100, 'REST')
  t.ok(families('POST /api/v2/graphql') > 20, 'GraphQL')
  t.ok(families('GET /api?') > 30, 'Etherscan')
  t.ok(families('SOCKET') > 20, 'socket pushes')
  t.same(answers.filter((a) => a.status >= 500), [], 'no server error')
  t.same(answers.filter((a) => a.request.includes('graphql') && a.body.includes('"errors"')), [], 'no GraphQL error')
  if (watched !== undefined) {
    t.equal(resultTypesHoldNone, true)
    t.ok(watched.calls > 500, `${watched.calls} query results read`)
    t.same([...new Set(watched.found.map((p) => p.replace(/\[\d+\]/g, '[]')))], [], 'no query returned a Buffer or a Date')
  }
})
