// API keys as requests see them: hashed, looked up once, then answered from
// memory. Each instance hears key changes (notify.ts) and forgets the key
// changed (and reads it again), so a revocation made anywhere holds here
// within PostgreSQL's delivery time. While that connection is down nothing is
// heard: entries are then trusted for a second only, and all are read again
// when it is back. A key seen before is answered from memory even when due to
// be read again (it is read in the background): so known keys keep working
// while the database cannot be reached, and only a key never seen waits for a
// query, which the caller may charge for first (plugins/auth charges the address).
// Unknown keys are remembered apart, in a small table of their own, so that
// a stream of random keys can neither reach the database twice with one key
// nor push live keys out of the cache.
// What a key opened and keeps open (a WebSocket) is watched: its key is read
// again on every notice of it and after every spell unheard, and the watcher
// told once the key no longer works (at once, or when a rotated key's grace ends).
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import { isDatabaseUnavailable } from '../db/unavailable.ts'
import { hashApiKey, isWellFormedApiKey } from './key-format.ts'
import { findApiKeyByHash, type ApiKeyRecord } from './store.ts'
import { listenForKeyChanges } from './notify.ts'

/** Cached keys (live and revoked) before the oldest are dropped. */
const MAX_ENTRIES = 100_000
/** A backstop should a notice be lost with the connection still up. */
const TRUSTED_MS = 60_000
const TRUSTED_UNHEARD_MS = 1_000
/** Unknown keys remembered before the oldest are dropped: a client's random keys are charged to its address anyway. */
export const MAX_UNKNOWN_ENTRIES = 10_000
/**
 * How long an unknown key is remembered. A key created meanwhile is heard of
 * (its creation's notice forgets the entry) within milliseconds; this is the
 * bound should that notice be lost.
 */
export const UNKNOWN_TRUSTED_MS = 10_000
/** A watched key that could not be read is read again after this. */
const REREAD_MS = 1_000
/** setTimeout's longest wait; a revocation further ahead is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1

export type ApiKeyLookup = {
  /** The live key, or why it is refused; synchronous when the key is cached (nearly always). */
  find (key: string): ApiKeyFound | Promise<ApiKeyFound>
  /**
   * What memory says of the key without waiting: undefined when only the
   * database can say (a key never seen, or an unknown one remembered no
   * longer). A known key due to be read again is answered and read in the background.
   */
  known (key: string): ApiKeyFound | undefined
  /**
   * Calls `onRevoked` once when this (well-formed) key stops working: revoked
   * anywhere, or its rotation's grace over. Returns the function that stops watching.
   */
  watch (key: string, onRevoked: () => void): () => void
  close (): Promise<void>
}

export type ApiKeyFound = ApiKeyRecord | 'malformed' | 'unknown' | 'revoked'

export type ApiKeyLookupOptions = { db: Knex, databaseUrl: string, log: Logger }

type Entry = { record: ApiKeyRecord, loadedAtMs: number }

function verdict (record: ApiKeyRecord | undefined, nowMs: number): ApiKeyFound {
  if (record === undefined) return 'unknown'
  return record.revokedAtMs !== null && record.revokedAtMs <= nowMs ? 'revoked' : record
}

/** Drops the oldest entry of a table at its bound (Maps keep insertion order). */
function makeRoom (table: Map<string, unknown>, max: number): void {
  if (table.size >= max) table.delete(table.keys().next().value!)
}

export async function createApiKeyLookup (o: ApiKeyLookupOptions): Promise<ApiKeyLookup> {
  const cache = new Map<string, Entry>()
  /** Unknown keys' hashes and when the database said so. */
  const unknown = new Map<string, number>()
  const hashes = new Map<string, string>()
  const loading = new Map<string, Promise<ApiKeyRecord | undefined>>()
  // Bumped when every key may have changed unheard (the listening connection
  // lost), and per key by its notice: a read that overlapped either does not
  // cache what it read. Per key, so that a notice of one key never keeps
  // another's read out of the cache.
  let missedChanges = 0
  const keyChanges = new Map<string, number>()
  const changesOf = (hashHex: string): string => `${missedChanges}:${keyChanges.get(hashHex) ?? 0}`
  // Whether key changes are heard now; while not, cached keys are trusted for TRUSTED_UNHEARD_MS only.
  let heard = true
  const watched = new Map<string, Watched>()
  // A key changed (created, revoked, rotated) is forgotten and read again at
  // once: so a key just created is known here before its first request, which
  // then costs its address nothing (plugins/auth charges the address for a key
  // never seen), and a watched key's sockets learn of a revocation. Changes
  // are few: an operator's.
  const changed = (hashHex: string): void => {
    makeRoom(keyChanges, MAX_ENTRIES)
    keyChanges.set(hashHex, (keyChanges.get(hashHex) ?? 0) + 1)
    cache.delete(hashHex)
    unknown.delete(hashHex)
    const fresh = readAfterChange(hashHex)
    fresh.catch(failedAgain)
    if (watched.has(hashHex)) recheck(hashHex, fresh)
  }
  const listener = await listenForKeyChanges(o.databaseUrl, o.log, changed, {
    onLost: () => { heard = false },
    // Whatever changed while nobody listened is read again: each known key on
    // its next request (answered meanwhile from memory), unknown keys at once,
    // watched keys now.
    onMissed: () => {
      heard = true
      missedChanges++
      for (const entry of cache.values()) entry.loadedAtMs = 0
      unknown.clear()
      for (const hashHex of watched.keys()) recheck(hashHex)
    }
  })
  const failedAgain = (err: unknown): void => {
    if (!isDatabaseUnavailable(err)) o.log.warn({ err }, 'reading an API key again failed; its last verdict stands')
  }

  async function read (hashHex: string): Promise<ApiKeyRecord | undefined> {
    const seen = changesOf(hashHex)
    let record: ApiKeyRecord | undefined
    try {
      record = await findApiKeyByHash(o.db, Buffer.from(hashHex, 'hex'))
    } catch (err) {
      // The database away: a known key keeps its last verdict (nothing can change
      // it meanwhile), and is tried again in a while rather than on every request.
      const entry = cache.get(hashHex)
      if (entry !== undefined && seen === changesOf(hashHex) && isDatabaseUnavailable(err)) entry.loadedAtMs = Date.now()
      throw err
    }
    if (seen === changesOf(hashHex)) {
      if (record === undefined) {
        cache.delete(hashHex)
        makeRoom(unknown, MAX_UNKNOWN_ENTRIES)
        unknown.set(hashHex, Date.now())
      } else {
        unknown.delete(hashHex)
        // Set again, not updated: a key read again goes to the end, away from the next eviction.
        cache.delete(hashHex)
        makeRoom(cache, MAX_ENTRIES)
        cache.set(hashHex, { record, loadedAtMs: Date.now() })
      }
    }
    return record
  }

  function load (hashHex: string): Promise<ApiKeyRecord | undefined> {
    let pending = loading.get(hashHex)
    if (pending === undefined) {
      pending = read(hashHex).finally(() => loading.delete(hashHex))
      loading.set(hashHex, pending)
    }
    return pending
  }

  /** A read begun after a change was heard: one already under way may have read the row before it. */
  async function readAfterChange (hashHex: string): Promise<ApiKeyRecord | undefined> {
    await loading.get(hashHex)?.catch(() => undefined)
    return await load(hashHex)
  }

  function hashOf (key: string): string | undefined {
    // A key's hash never changes: remembered, so a busy key is hashed (and its shape checked) once, not per request.
    let hashHex = hashes.get(key)
    if (hashHex === undefined) {
      if (!isWellFormedApiKey(key)) return undefined
      hashHex = hashApiKey(key).toString('hex')
      makeRoom(hashes, MAX_ENTRIES)
      hashes.set(key, hashHex)
    }
    return hashHex
  }

  function knownByHash (hashHex: string): ApiKeyFound | undefined {
    const now = Date.now()
    const trustedMs = heard ? TRUSTED_MS : TRUSTED_UNHEARD_MS
    const entry = cache.get(hashHex)
    if (entry !== undefined) {
      // Read again in the background; a failure (the database away) is the next request's concern, not this one's.
      if (now - entry.loadedAtMs >= trustedMs) load(hashHex).catch(failedAgain)
      return verdict(entry.record, now)
    }
    const unknownAtMs = unknown.get(hashHex)
    if (unknownAtMs !== undefined && now - unknownAtMs < Math.min(trustedMs, UNKNOWN_TRUSTED_MS)) return 'unknown'
    return undefined
  }

  function known (key: string): ApiKeyFound | undefined {
    const hashHex = hashOf(key)
    return hashHex === undefined ? 'malformed' : knownByHash(hashHex)
  }

  function find (key: string): ApiKeyFound | Promise<ApiKeyFound> {
    const hashHex = hashOf(key)
    if (hashHex === undefined) return 'malformed'
    return knownByHash(hashHex) ?? load(hashHex).then((record) => verdict(record, Date.now()))
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

  function recheck (hashHex: string, fresh: Promise<ApiKeyRecord | undefined> = readAfterChange(hashHex)): void {
    const entry = watched.get(hashHex)
    if (entry === undefined) return
    const reading = ++entry.reads
    fresh.then((record) => {
      // A later read (a later notice) decides; a key no longer watched needs none.
      if (reading === entry.reads && watched.get(hashHex) === entry) judge(hashHex, record)
    }, (err: unknown) => {
      if (!isDatabaseUnavailable(err)) o.log.warn({ err: (err as Error).message }, 'cannot read a watched API key again; trying again')
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
      if (cached !== undefined && heard && Date.now() - cached.loadedAtMs < TRUSTED_MS) judge(hashHex, cached.record)
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
    known,
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
