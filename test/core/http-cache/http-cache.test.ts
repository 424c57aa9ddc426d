// The head-keyed answer cache without a server: tags, If-None-Match, and what
// empties it (a block event, a rollback, age), fed by the indexer's real event
// bus and a head read the test controls.
import t from 'tap'
import pino from 'pino'
import { createIndexerEvents, type IndexerEvents } from '../../../core/indexer/events.ts'
import { ANSWER_MAX_AGE_MS, createHttpCache, matchesIfNoneMatch, type IndexedHead } from '../../../core/http-cache/index.ts'
import { entityTag } from '../../../core/http-cache/etag.ts'
import type { CommittedBlock } from '../../../core/indexer/types.ts'

const HASH_A = '0x' + 'aa'.repeat(32)
const HASH_B = '0x' + 'bb'.repeat(32)
const HASH_C = '0x' + 'cc'.repeat(32)
const headA: IndexedHead = { number: 7, hash: HASH_A }

const blockEvent = (number: number, hash: string) => ({
  type: 'block' as const,
  blocks: [{ block: { number, hash }, transactions: [], tokenTransfers: [] } as unknown as CommittedBlock],
  storedHere: true
})

function setUp (stored: IndexedHead | undefined, maxBytes = 1 << 20) {
  const events: IndexerEvents = createIndexerEvents(pino({ level: 'silent' }))
  const state = { stored, reads: 0, nowMs: 1_000_000 }
  const cache = createHttpCache({ events, readHead: async () => { state.reads++; return state.stored }, maxBytes, now: () => state.nowMs })
  t.teardown(cache.close)
  return { events, state, cache }
}

t.test('entityTag() is weak, names the head and changes with the head, the key and the body', async (t) => {
  const tag = entityTag(headA, '/api/v2/blocks', '[1]')
  t.match(tag, /^W\/"7-[A-Za-z0-9_-]{16}"$/)
  t.equal(entityTag(headA, '/api/v2/blocks', '[1]'), tag, 'the same inputs give the same tag (on any instance)')
  t.not(entityTag({ number: 7, hash: HASH_B }, '/api/v2/blocks', '[1]'), tag, 'another block at the same height (a reorg)')
  t.not(entityTag(headA, '/api/v2/transactions', '[1]'), tag)
  t.not(entityTag(headA, '/api/v2/blocks', '[2]'), tag)
})

t.test('matchesIfNoneMatch() compares weakly, takes lists and *', async (t) => {
  const tag = 'W/"7-abc"'
  t.ok(matchesIfNoneMatch(tag, tag))
  t.ok(matchesIfNoneMatch('"7-abc"', tag), 'a strong form of the same opaque tag matches weakly')
  t.ok(matchesIfNoneMatch('"x", W/"7-abc" ,"y"', tag))
  t.ok(matchesIfNoneMatch('*', tag))
  t.ok(matchesIfNoneMatch(['"x"', 'W/"7-abc"'], tag))
  t.notOk(matchesIfNoneMatch(undefined, tag))
  t.notOk(matchesIfNoneMatch('', tag))
  t.notOk(matchesIfNoneMatch('W/"7-abd"', tag))
})

t.test('createHttpCache() reads the head once, keeps an answer and finds it while the head stays', async (t) => {
  const { cache, state } = setUp(headA)
  const head = await cache.head()
  t.same(head, headA)
  t.equal(cache.find(headA, 'k'), undefined)
  const kept = cache.keep(headA, 'k', '{"a":1}', 'application/json')
  t.equal(kept.etag, entityTag(headA, 'k', '{"a":1}'))
  t.equal(cache.find(headA, 'k')?.body, '{"a":1}')
  await cache.head()
  t.equal(state.reads, 1, 'the head is read from the database once, then known')
  t.match(cache.stats(), { entries: 1, hits: 1, misses: 1 })
})

t.test('a block event moves the head without a read and empties the cache', async (t) => {
  const { cache, events, state } = setUp(headA)
  await cache.head()
  cache.keep(headA, 'k', 'old', 'application/json')
  events.publish(blockEvent(8, HASH_B))
  t.same(await cache.head(), { number: 8, hash: HASH_B })
  t.equal(state.reads, 1)
  t.equal(cache.find(headA, 'k'), undefined, 'nothing is found for the old head')
  t.equal(cache.find({ number: 8, hash: HASH_B }, 'k'), undefined, 'nor for the new one')
  t.equal(cache.stats().entries, 0)
})

t.test('an answer made at a head since replaced is tagged but not kept', async (t) => {
  const { cache, events } = setUp(headA)
  const head = (await cache.head())!
  events.publish(blockEvent(8, HASH_B))
  const late = cache.keep(head, 'k', 'made at 7', 'application/json')
  t.match(late.etag, /^W\/"7-/)
  t.equal(cache.stats().entries, 0)
})

t.test('clear() empties the cache at the same head, and an answer begun before it is not kept', async (t) => {
  const { cache } = setUp(headA)
  await cache.head()
  cache.keep(headA, 'k', 'before the verification', 'application/json')
  const begun = cache.generation()
  cache.clear()
  t.equal(cache.find(headA, 'k'), undefined, 'the answer kept before is gone')
  cache.keep(headA, 'k', 'begun before the clear', 'application/json', begun)
  t.equal(cache.find(headA, 'k'), undefined, 'an answer begun before the clear is not kept')
  cache.keep(headA, 'k', 'after', 'application/json', cache.generation())
  t.equal(cache.find(headA, 'k')?.body, 'after', 'one begun after it is')
})

t.test('a rollback makes the head be read again: the new branch\'s block gives new tags', async (t) => {
  const { cache, events, state } = setUp({ number: 8, hash: HASH_B })
  const before = (await cache.head())!
  const tagBefore = cache.keep(before, 'k', 'same body', 'application/json').etag
  state.stored = { number: 8, hash: HASH_C }
  events.publish({ type: 'reorg', ancestor: 7, removed: 1, storedHere: true })
  const after = (await cache.head())!
  t.same(after, { number: 8, hash: HASH_C })
  t.equal(state.reads, 2)
  t.equal(cache.find(after, 'k'), undefined)
  t.not(cache.keep(after, 'k', 'same body', 'application/json').etag, tagBefore, 'the same body at the same height on another branch has another tag')
})

t.test('a head read begun before a block event does not overwrite it', async (t) => {
  const { cache, events, state } = setUp(headA)
  const reading = cache.head()
  events.publish(blockEvent(8, HASH_B))
  t.same(await reading, headA, 'the read answers its caller')
  t.same(await cache.head(), { number: 8, hash: HASH_B }, 'the event stands')
  t.equal(state.reads, 1)
})

t.test('nothing indexed: no head, so nothing is cached', async (t) => {
  const { cache } = setUp(undefined)
  t.equal(await cache.head(), undefined)
})

t.test('an answer older than ANSWER_MAX_AGE_MS is dropped though the head stays', async (t) => {
  const { cache, state } = setUp(headA)
  await cache.head()
  cache.keep(headA, 'k', 'body', 'application/json')
  state.nowMs += ANSWER_MAX_AGE_MS
  t.ok(cache.find(headA, 'k'))
  state.nowMs += 1
  t.equal(cache.find(headA, 'k'), undefined)
  t.equal(cache.stats().entries, 0)
})

t.test('past maxBytes the oldest answers go first; one larger than the whole is not kept', async (t) => {
  const { cache } = setUp(headA, 100)
  await cache.head()
  cache.keep(headA, 'a', 'x'.repeat(40), 'application/json')
  cache.keep(headA, 'b', 'x'.repeat(40), 'application/json')
  cache.keep(headA, 'c', 'x'.repeat(40), 'application/json')
  t.equal(cache.find(headA, 'a'), undefined)
  t.ok(cache.find(headA, 'b'))
  t.ok(cache.find(headA, 'c'))
  t.ok(cache.stats().bytes <= 100)
  cache.keep(headA, 'd', 'x'.repeat(200), 'application/json')
  t.equal(cache.find(headA, 'd'), undefined)
  t.equal(cache.stats().entries, 2)
})
