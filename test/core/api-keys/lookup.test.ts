// The key lookup's cache against the notices that keep it honest: a revocation
// heard drops the key at once; one sent while the listening connection was
// lost is not heard, so meanwhile cached keys are trusted for a second only,
// and all are read again once it listens again.
import t, { type Test } from 'tap'
import pg from 'pg'
import pino from 'pino'
import { setTimeout as sleep } from 'node:timers/promises'
import { openDatabase } from '../../../core/db/index.ts'
import { createApiKeyLookup, type ApiKeyLookup } from '../../../core/api-keys/lookup.ts'
import { createApiKey, revokeApiKeys } from '../../../core/api-keys/store.ts'
import { createTestDatabase } from '../../support/database.ts'

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
