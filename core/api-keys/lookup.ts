// API keys as requests see them: hashed, looked up once, then answered from
// memory. Each instance hears key changes (notify.ts) and forgets the key
// changed, so a revocation made anywhere holds here within PostgreSQL's
// delivery time. While that connection is down nothing is heard: entries are
// then trusted for a second only, and all are forgotten when it is back.
// What a key opened and keeps open (a WebSocket) is watched: its key is read
// again on every notice of it and after every spell unheard, and the watcher
// told once the key no longer works (at once, or when a rotated key's grace ends).
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
/** A watched key that could not be read is read again after this. */
const REREAD_MS = 1_000
/** setTimeout's longest wait; a revocation further ahead is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1

export type ApiKeyLookup = {
  /** The live key, or why it is refused; synchronous when the key is cached (nearly always). */
  find (key: string): ApiKeyFound | Promise<ApiKeyFound>
  /**
   * Calls `onRevoked` once when this (well-formed) key stops working: revoked
   * anywhere, or its rotation's grace over. Returns the function that stops watching.
   */
  watch (key: string, onRevoked: () => void): () => void
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
  const watched = new Map<string, Watched>()
  const forget = (hashHex: string): void => {
    changes++
    cache.delete(hashHex)
    if (watched.has(hashHex)) recheck(hashHex)
  }
  const listener = await listenForKeyChanges(o.databaseUrl, o.log, forget, {
    onLost: () => { heard = false },
    // Whatever changed while nobody listened is read again.
    onMissed: () => {
      heard = true
      changes++
      cache.clear()
      for (const hashHex of watched.keys()) recheck(hashHex)
    }
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

  /** Tells the key's watchers if it stopped working; otherwise waits for the revocation it has ahead, if any. */
  function judge (hashHex: string, record: ApiKeyRecord | undefined): void {
    const entry = watched.get(hashHex)
    if (entry === undefined) return
    clearTimeout(entry.timer)
    entry.timer = undefined
    const now = Date.now()
    if (typeof verdict(record, now) === 'string') {
      watched.delete(hashHex)
      for (const onRevoked of entry.watchers) onRevoked()
      return
    }
    if (record?.revokedAtMs != null) entry.timer = setTimeout(() => recheck(hashHex), Math.min(record.revokedAtMs - now, MAX_TIMER_MS)).unref()
  }

  function recheck (hashHex: string): void {
    const entry = watched.get(hashHex)
    if (entry === undefined) return
    const reading = ++entry.reads
    load(hashHex, Buffer.from(hashHex, 'hex')).then((record) => {
      // A later read (a later notice) decides; a key no longer watched needs none.
      if (reading === entry.reads && watched.get(hashHex) === entry) judge(hashHex, record)
    }, (err: unknown) => {
      o.log.warn({ err: (err as Error).message }, 'cannot read a watched API key again; trying again')
      clearTimeout(entry.timer)
      entry.timer = setTimeout(() => recheck(hashHex), REREAD_MS).unref()
    })
  }

  function watch (key: string, onRevoked: () => void): () => void {
    const hashHex = hashes.get(key) ?? hashApiKey(key).toString('hex')
    const watcher = (): void => onRevoked()
    const entry = watched.get(hashHex)
    if (entry !== undefined) entry.watchers.add(watcher)
    else {
      watched.set(hashHex, { watchers: new Set([watcher]), timer: undefined, reads: 0 })
      // Judged now, as the cache has it (or read): a revocation may lie ahead, or be heard since the socket's request was let in.
      const cached = cache.get(hashHex)
      if (cached !== undefined && heard) judge(hashHex, cached.record)
      else recheck(hashHex)
    }
    const stop = (): void => {
      const current = watched.get(hashHex)
      if (current === undefined || !current.watchers.delete(watcher) || current.watchers.size > 0) return
      clearTimeout(current.timer)
      watched.delete(hashHex)
    }
    return stop
  }

  return {
    find,
    watch,
    close: async () => {
      for (const entry of watched.values()) clearTimeout(entry.timer)
      watched.clear()
      await listener.close()
    }
  }
}

/** A watched key's watchers; `reads` counts the reads begun, so that only the last one decides. */
type Watched = { watchers: Set<() => void>, timer: NodeJS.Timeout | undefined, reads: number }
