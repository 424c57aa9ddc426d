// The key lookup's cache against the notices that keep it honest: a revocation
// heard drops the key at once; one sent while the listening connection was
// lost is not heard, so meanwhile cached keys are trusted for a second only,
// and all are read again once it listens again. Unknown keys are remembered
// (one query each) until a creation is heard; with the database away, known
// keys keep their verdict. Keys watched (an open socket's) are told when they
// stop working, however that is learnt.
import t, { type Test } from 'tap'
import pg from 'pg'
import pino from 'pino'
import { setTimeout as sleep } from 'node:timers/promises'
import { openDatabase } from '../../../core/db/index.ts'
import { createApiKeyLookup, type ApiKeyLookup } from '../../../core/api-keys/lookup.ts'
import { createApiKey, revokeApiKeys, rotateApiKey } from '../../../core/api-keys/store.ts'
import { generateApiKey, hashApiKey } from '../../../core/api-keys/key-format.ts'
import { announceKeyChange } from '../../../core/api-keys/notify.ts'
import { isDatabaseUnavailable } from '../../../core/db/unavailable.ts'
import { createTestDatabase } from '../../support/database.ts'
import { startTcpProxy, throughProxy } from '../../support/tcp-proxy.ts'

const log = pino({ level: 'silent' })
const url = await createTestDatabase(t)
const database = await openDatabase({ url, dataDir: '', log })
t.teardown(async () => await database.close())
const admin = new pg.Client({ connectionString: url })
await admin.connect()
t.teardown(async () => await admin.end())

/** Whether `find` says what `want` says within `ms`. */
async function settles (find: () => unknown, want: (found: unknown) => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (want(await find())) return true
    await sleep(20)
  }
  return false
}

const isRecord = (found: unknown): boolean => typeof found === 'object' && found !== null

/** A lookup of the test's own, and a new key it has read and cached. */
async function cachedKey (t: Test, label: string): Promise<{ lookup: ApiKeyLookup, key: string, id: string }> {
  const lookup = await createApiKeyLookup({ db: database.knex, databaseUrl: url, log })
  t.teardown(async () => await lookup.close())
  const { key, listing } = await createApiKey(database.knex, { label, tier: 'premium' })
  // The creation's own notice, heard after a first read, would drop what that read cached.
  await sleep(200)
  t.ok(isRecord(await lookup.find(key)), 'live and cached')
  return { lookup, key, id: listing.id }
}

t.test('a key revoked elsewhere is refused as soon as the notice is heard', async (t) => {
  const { lookup, key, id } = await cachedKey(t, 'heard')
  await revokeApiKeys(database.knex, id)
  t.ok(await settles(() => lookup.find(key), (f) => f === 'revoked', 500), 'refused within half a second')
})

t.test('while the listening connection is lost, cached keys are trusted for a second only; then all are read again', async (t) => {
  const { lookup, key, id } = await cachedKey(t, 'unheard')
  // The lookup's LISTEN connection is the only one listening: end it, then revoke with nobody to hear.
  const { rows } = await admin.query('select pid from pg_stat_activity where datname = current_database() and query ilike \'listen %\' and pid <> pg_backend_pid()')
  t.ok(rows.length >= 1, 'the listening connection is found')
  await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike \'listen %\' and pid <> pg_backend_pid()')
  await sleep(100)
  await revokeApiKeys(database.knex, id)
  await sleep(100)
  t.ok(isRecord(await lookup.find(key)), 'the notice was not heard: the cached key still answers')
  t.ok(await settles(() => lookup.find(key), (f) => f === 'revoked', 3000), 'the revocation nobody heard holds within seconds, not the minute a heard cache is trusted')
})

/** Queries of the api_keys table made through `database.knex` from now on. */
function countKeyQueries (t: Test): () => number {
  let count = 0
  const onQuery = (query: { sql: string }): void => { if (query.sql.includes('api_keys')) count++ }
  database.knex.on('query', onQuery)
  t.teardown(() => { database.knex.off('query', onQuery) })
  return () => count
}

t.test('an unknown key costs one query, then is remembered; created later, it works once its creation is heard', async (t) => {
  const lookup = await createApiKeyLookup({ db: database.knex, databaseUrl: url, log })
  t.teardown(async () => await lookup.close())
  const queries = countKeyQueries(t)
  const key = generateApiKey()
  t.equal(lookup.known(key), undefined, 'never seen: only the database can say')
  t.equal(await lookup.find(key), 'unknown')
  t.equal(queries(), 1, 'one query')
  for (let i = 0; i < 20; i++) t.equal(lookup.find(key), 'unknown', 'answered from memory, without waiting')
  t.equal(queries(), 1, 'asked 20 times more: still one query')
  t.equal(lookup.known('tg_short'), 'malformed', 'a malformed key needs no query either')
  t.equal(queries(), 1)

  // The key created now, as createApiKey does: its row and its notice in one transaction.
  await database.knex.transaction(async (trx) => {
    await trx('api_keys').insert({ key_hash: hashApiKey(key), label: 'created after it was tried', tier: 'premium' })
    await announceKeyChange(trx, hashApiKey(key))
  })
  t.ok(await settles(() => lookup.find(key), isRecord, 500), 'served within half a second of its creation, not the 10 s an unknown key is remembered')
})

t.test('with the database away a known key keeps its verdict; a key never seen fails with the database\'s error', async (t) => {
  const target = new URL(url)
  const proxy = await startTcpProxy(t, { host: target.hostname, port: Number(target.port) })
  const proxiedUrl = throughProxy(url, proxy)
  const proxied = await openDatabase({ url: proxiedUrl, dataDir: '', log })
  t.teardown(async () => await proxied.close())
  const lookup = await createApiKeyLookup({ db: proxied.knex, databaseUrl: proxiedUrl, log })
  t.teardown(async () => await lookup.close())
  const { key, listing } = await createApiKey(database.knex, { label: 'outlives the database', tier: 'premium' })
  const { key: revoked, listing: revokedListing } = await createApiKey(database.knex, { label: 'revoked before', tier: 'premium' })
  await revokeApiKeys(database.knex, revokedListing.id)
  await sleep(200)
  t.ok(isRecord(await lookup.find(key)), 'live and cached')
  t.equal(await lookup.find(revoked), 'revoked', 'revoked and cached')

  await proxy.stop()
  // Past the second keys are trusted while nothing is heard: each is read again (and that fails).
  await sleep(1500)
  for (let i = 0; i < 5; i++) {
    t.ok(isRecord(lookup.known(key)), `the known key still answers (${i + 1})`)
    t.equal(lookup.known(revoked), 'revoked', 'the revoked one stays refused')
    await sleep(300)
  }
  const neverSeen = lookup.find(generateApiKey())
  await t.rejects(Promise.resolve(neverSeen), 'a key never seen cannot be checked')
  t.ok(await Promise.resolve(neverSeen).then(() => false, isDatabaseUnavailable), 'and says the database is unavailable')

  await proxy.start()
  await revokeApiKeys(database.knex, listing.id)
  t.ok(await settles(() => lookup.find(key), (f) => f === 'revoked', 10_000), 'back, it listens again and the revocation holds')
})

/** When `onRevoked` is first called after now, in ms (undefined: not within `ms`). */
async function revokedAfter (watched: { calls: number, atMs?: number }, startMs: number, ms: number): Promise<number | undefined> {
  const until = Date.now() + ms
  while (Date.now() < until && watched.calls === 0) await sleep(10)
  return watched.atMs === undefined ? undefined : watched.atMs - startMs
}

function watchKey (lookup: ApiKeyLookup, key: string): { calls: number, atMs?: number, stop: () => void } {
  const watched: { calls: number, atMs?: number, stop: () => void } = { calls: 0, stop: () => {} }
  watched.stop = lookup.watch(key, () => { watched.calls++; watched.atMs ??= Date.now() })
  return watched
}

t.test('watch() tells of a key revoked elsewhere once, and not of a live one or one no longer watched', async (t) => {
  const { lookup, key, id } = await cachedKey(t, 'watched')
  const { key: other } = await createApiKey(database.knex, { label: 'watched, other', tier: 'premium' })
  const { key: third, listing: thirdListing } = await createApiKey(database.knex, { label: 'unwatched later', tier: 'premium' })
  const watched = watchKey(lookup, key)
  const twice = watchKey(lookup, key)
  const live = watchKey(lookup, other)
  const stopped = watchKey(lookup, third)
  await sleep(200)
  t.equal(watched.calls, 0, 'a live key is not reported')
  stopped.stop()
  const start = Date.now()
  await revokeApiKeys(database.knex, id)
  await revokeApiKeys(database.knex, thirdListing.id)
  const ms = await revokedAfter(watched, start, 2000)
  t.ok(ms !== undefined && ms < 1000, `told within a second (${ms} ms)`)
  await sleep(200)
  t.equal(watched.calls, 1, 'once')
  t.equal(twice.calls, 1, 'every watcher of the key')
  t.equal(live.calls, 0, 'another key\'s watcher is not told')
  t.equal(stopped.calls, 0, 'a watcher that stopped is not told')
})

t.test('watch() tells of a revocation already made, and of a rotated key when its grace is over', async (t) => {
  const { lookup, key, id } = await cachedKey(t, 'rotated')
  await rotateApiKey(database.knex, id, 1)
  await sleep(200)
  const start = Date.now()
  const watched = watchKey(lookup, key)
  await sleep(500)
  t.equal(watched.calls, 0, 'within its grace the key works')
  const ms = await revokedAfter(watched, start, 3000)
  t.ok(ms !== undefined && ms >= 600 && ms < 1800, `told when the grace ends (${ms} ms after watching, grace ending about 800 ms after)`)

  const { key: gone, listing } = await createApiKey(database.knex, { label: 'revoked before', tier: 'premium' })
  await revokeApiKeys(database.knex, listing.id)
  const late = watchKey(lookup, gone)
  t.ok(await revokedAfter(late, Date.now(), 1000) !== undefined, 'a key revoked before it was watched is told at once')
})

t.test('watch() tells of a revocation made while the listening connection was lost, once it listens again', async (t) => {
  const { lookup, key, id } = await cachedKey(t, 'watched unheard')
  const watched = watchKey(lookup, key)
  await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike \'listen %\' and pid <> pg_backend_pid()')
  await sleep(100)
  const start = Date.now()
  await revokeApiKeys(database.knex, id)
  const ms = await revokedAfter(watched, start, 4000)
  t.ok(ms !== undefined, `told once the lookup listens again (${ms} ms)`)
})
