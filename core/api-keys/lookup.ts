// API keys as requests see them: hashed, looked up once, then answered from
// memory. Each instance hears key changes (notify.ts) and forgets the key
// changed, so a revocation made anywhere holds here within PostgreSQL's
// delivery time. While that connection is down nothing is heard: entries are
// then trusted for a second only, and all are forgotten when it is back.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import { hashApiKey, isWellFormedApiKey } from './key-format.ts'
import { findApiKeyByHash, type ApiKeyRecord } from './store.ts'
import { listenForKeyChanges } from './notify.ts'

/** Cached keys (known and unknown) before the oldest are dropped. */
const MAX_ENTRIES = 100_000
/** A backstop should a notice be lost with the connection still up. */
const TRUSTED_MS = 60_000
const TRUSTED_UNHEARD_MS = 1_000

export type ApiKeyLookup = {
  /** The live key, or why it is refused; synchronous when the key is cached (nearly always). */
  find (key: string): ApiKeyFound | Promise<ApiKeyFound>
  close (): Promise<void>
}

export type ApiKeyFound = ApiKeyRecord | 'malformed' | 'unknown' | 'revoked'

export type ApiKeyLookupOptions = { db: Knex, databaseUrl: string, log: Logger }

type Entry = { record: ApiKeyRecord | undefined, loadedAtMs: number }

function verdict (record: ApiKeyRecord | undefined, nowMs: number): ApiKeyFound {
  if (record === undefined) return 'unknown'
  return record.revokedAtMs !== null && record.revokedAtMs <= nowMs ? 'revoked' : record
}

export async function createApiKeyLookup (o: ApiKeyLookupOptions): Promise<ApiKeyLookup> {
  const cache = new Map<string, Entry>()
  const hashes = new Map<string, string>()
  const loading = new Map<string, Promise<ApiKeyRecord | undefined>>()
  // Bumped by every notice: a lookup that overlapped one does not cache what it read.
  let changes = 0
  // Whether key changes are heard now; while not, cached keys are trusted for TRUSTED_UNHEARD_MS only.
  let heard = true
  const forget = (hashHex: string): void => { changes++; cache.delete(hashHex) }
  const listener = await listenForKeyChanges(o.databaseUrl, o.log, forget, {
    onLost: () => { heard = false },
    // Whatever changed while nobody listened is read again.
    onMissed: () => { heard = true; changes++; cache.clear() }
  })

  async function load (hashHex: string, hash: Buffer): Promise<ApiKeyRecord | undefined> {
    const seen = changes
    const record = await findApiKeyByHash(o.db, hash)
    if (seen === changes) {
      if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!)
      cache.set(hashHex, { record, loadedAtMs: Date.now() })
    }
    return record
  }

  function find (key: string): ApiKeyFound | Promise<ApiKeyFound> {
    // A key's hash never changes: remembered, so a busy key is hashed (and its shape checked) once, not per request.
    let hashHex = hashes.get(key)
    if (hashHex === undefined) {
      if (!isWellFormedApiKey(key)) return 'malformed'
      hashHex = hashApiKey(key).toString('hex')
      if (hashes.size >= MAX_ENTRIES) hashes.delete(hashes.keys().next().value!)
      hashes.set(key, hashHex)
    }
    const now = Date.now()
    const entry = cache.get(hashHex)
    if (entry !== undefined && now - entry.loadedAtMs < (heard ? TRUSTED_MS : TRUSTED_UNHEARD_MS)) return verdict(entry.record, now)
    let pending = loading.get(hashHex)
    if (pending === undefined) {
      const loadingHash = hashHex
      pending = load(loadingHash, Buffer.from(loadingHash, 'hex')).finally(() => loading.delete(loadingHash))
      loading.set(hashHex, pending)
    }
    return pending.then((record) => verdict(record, Date.now()))
  }

  return {
    find,
    close: async () => await listener.close()
  }
}
