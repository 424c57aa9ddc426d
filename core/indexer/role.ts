// Writer or reader. One instance on a database writes: the one holding the
// indexer lock (lock.ts). The others read, hear the writer's commits, and try
// for the lock now and then, so that one takes over when the writer goes. An
// instance with indexing disabled (INDEXER_ENABLED=false) never tries: it
// stays a reader whatever happens to the writer, which keeps indexing off its
// request thread.
import { setMaxListeners } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from '../logger.ts'
import { isRetryable } from './failures.ts'
import { IndexerLockLostError, tryAcquireIndexerLock, type IndexerLock, type WriterFence } from './lock.ts'

export type IndexerRole = 'starting' | 'writer' | 'reader' | 'failed' | 'stopped'

const LOCK_RETRY_MS = 1000
const RETRY_BASE_MS = 500
const RETRY_MAX_MS = 30_000

export type RoleOptions = {
  /** For the advisory lock's own connection. */
  databaseUrl: string
  log: Logger
  /** false: never take the lock, only read (INDEXER_ENABLED=false). */
  mayWrite: boolean
  role: () => IndexerRole
  setRole: (role: IndexerRole) => void
  /** One tenure's work: returns (or throws) only when `signal` aborts or it fails. `onStored` resets the backoff. */
  write: (fence: WriterFence, signal: AbortSignal, onStored: () => void) => Promise<void>
  /** One turn as a reader (listen for commits, refresh the status); the lock is tried again after it. */
  read: (signal: AbortSignal) => Promise<void>
  /** Stops what `read` started: the instance is about to write, or stops. */
  stopReading: () => Promise<void>
}

/**
 * Takes the writer's or a reader's role until `signal` aborts, retrying by
 * class (failures.ts). A failure retrying cannot fix ends it in 'failed'
 * (the caller still stops what reading started).
 */
export async function runRoles (o: RoleOptions, signal: AbortSignal): Promise<void> {
  let failures = 0
  while (!signal.aborted) {
    try {
      await takeRole(o, signal, () => { failures = 0 })
    } catch (err) {
      if (signal.aborted) break
      if (!isRetryable(err)) {
        o.setRole('failed')
        o.log.error({ err }, 'indexer stopped on an error retrying cannot fix')
        return
      }
      const delayMs = Math.min(RETRY_BASE_MS * 2 ** failures++, RETRY_MAX_MS)
      o.log.warn({ err: (err as Error).message, retry_in_ms: delayMs }, 'indexer retrying')
      await sleep(delayMs, undefined, { signal }).catch(() => {})
    }
  }
  await o.stopReading()
  o.setRole('stopped')
}

/** A turn as a reader, or a whole tenure as the writer when the lock is free. */
async function takeRole (o: RoleOptions, signal: AbortSignal, onStored: () => void): Promise<void> {
  const lock = o.mayWrite ? await tryAcquireIndexerLock(o.databaseUrl) : undefined
  if (lock === undefined) {
    await readForAWhile(o, signal)
    return
  }
  // Readers and the writer publish the same blocks: stop hearing them before writing them.
  await o.stopReading()
  o.setRole('writer')
  o.log.info('holding the indexer lock: this instance indexes')
  await writeWhileHolding(o, lock, signal, onStored)
}

async function readForAWhile (o: RoleOptions, signal: AbortSignal): Promise<void> {
  if (o.role() !== 'reader') o.log.info(o.mayWrite ? 'another instance holds the indexer lock: serving reads only' : 'indexing disabled (INDEXER_ENABLED=false): serving reads only')
  o.setRole('reader')
  await o.read(signal)
  await sleep(LOCK_RETRY_MS, undefined, { signal }).catch(() => {})
}

/**
 * One tenure as the writer, until stopped or the lock's connection is lost.
 * A lost lock aborts the tenure at once: whatever it was doing ends, and a
 * commit already under way is refused by the lock's fence (lock.ts). It
 * ends in IndexerLockLostError, which is retried: the lock may be free again.
 */
async function writeWhileHolding (o: RoleOptions, lock: IndexerLock, signal: AbortSignal, onStored: () => void): Promise<void> {
  const lost = new AbortController()
  lock.lost.then(() => lost.abort(new IndexerLockLostError('lost the indexer lock\'s connection')), () => {})
  // Either ends the tenure; a stop that came while the lock was being taken is already in `signal`.
  const tenure = AbortSignal.any([signal, lost.signal])
  // Every fetch in flight listens on it: more than Node's default of ten is expected.
  setMaxListeners(100, tenure)
  try {
    await o.write(lock, tenure, onStored)
  } catch (err) {
    // Anything that failed because the lock was lost says so, below.
    if (!lost.signal.aborted || signal.aborted) throw err
  } finally {
    await lock.release()
  }
  if (lost.signal.aborted && !signal.aborted) throw lost.signal.reason
}
