// Log filters' criteria kept in the database, for every gateway instance on
// it. Instances proxy to one node, which holds the filters, so a filter made
// through one instance is served by any: the one that reads it must know its
// criteria to hold it to the log limits (log-filters.ts keeps this instance's
// own). The filter id is Geth's: 128 random bits, so an id names no one
// else's filter. When the database does not answer, a filter made elsewhere is
// served as one whose criteria are unknown (its logs still meet the result
// cap, handler.ts), never refused: JSON-RPC keeps serving without a database.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import { FILTER_IDLE_MS, type LogFilterCriteria } from './log-filters.ts'

/** How often an instance moves on the used_at of the filters it read, and deletes idle rows. */
export const SHARED_FILTER_FLUSH_MS = 60_000
/** A row is deleted this long after its last use anywhere: longer than Geth keeps an idle filter, with a flush's delay. */
const ROW_IDLE_MS = FILTER_IDLE_MS + 2 * SHARED_FILTER_FLUSH_MS
/** A read or write that takes longer is given up: the request goes on without it. */
const DATABASE_WAIT_MS = 1000
/** Ids with no row (block and pending-transaction filters, polled often) are remembered, so each costs one query. */
const MAX_MISSES = 10_000

export type SharedLogFilters = {
  /** Keeps a new filter's criteria for the other instances; resolves once written or given up (logged). */
  save (id: string, criteria: LogFilterCriteria): Promise<void>
  /** The criteria another instance saved; undefined for an id with none (not a log filter) or when the database does not answer. */
  load (id: string): Promise<LogFilterCriteria | undefined>
  /** The filter was read here: its row's used_at is moved on at the next flush. */
  touch (id: string): void
  forget (id: string): void
  close (): void
}

export type SharedLogFiltersOptions = { db: Knex, log: Logger, now?: () => number }

export function createSharedLogFilters ({ db, log, now = Date.now }: SharedLogFiltersOptions): SharedLogFilters {
  const misses = new Map<string, number>()
  let touched = new Set<string>()
  let failing = false

  async function settle<T> (what: string, work: Promise<T>): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined
    const givenUp = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_WAIT_MS} ms`)), DATABASE_WAIT_MS)
    })
    try {
      const result = await Promise.race([work, givenUp])
      failing = false
      return result
    } catch (err) {
      // Once per spell of failures: a database that is down would otherwise log every filter read.
      if (!failing) log.warn({ err: (err as Error).message }, `log filters shared through the database: ${what} failed; filters made on other instances are held to the result cap only meanwhile`)
      failing = true
      work.catch(() => {})
      return undefined
    } finally {
      clearTimeout(timer)
    }
  }

  async function flush (): Promise<void> {
    const ids = [...touched]
    touched = new Set()
    if (ids.length > 0) await db('log_filters').whereIn('id', ids).update({ used_at: db.fn.now() })
    await db('log_filters').where('used_at', '<', db.raw('now() - make_interval(secs => ?)', [ROW_IDLE_MS / 1000])).delete()
  }
  const timer = setInterval(() => { settle('keeping filters', flush()).catch(() => {}) }, SHARED_FILTER_FLUSH_MS).unref()

  return {
    async save (id, criteria) {
      misses.delete(id)
      await settle('saving a filter', db('log_filters').insert({ id, criteria: JSON.stringify(criteria) }).onConflict('id').merge())
    },
    async load (id) {
      const missedAt = misses.get(id)
      if (missedAt !== undefined && now() - missedAt < FILTER_IDLE_MS) return undefined
      const found = await settle('reading a filter', db('log_filters').first('criteria').where('id', id))
      if (found === undefined && !failing) {
        if (misses.size >= MAX_MISSES) misses.delete(misses.keys().next().value!)
        misses.set(id, now())
      }
      return (found as { criteria: LogFilterCriteria } | undefined)?.criteria
    },
    touch (id) {
      touched.add(id)
    },
    forget (id) {
      touched.delete(id)
      settle('forgetting a filter', db('log_filters').where('id', id).delete()).catch(() => {})
    },
    close () {
      clearInterval(timer)
    }
  }
}
