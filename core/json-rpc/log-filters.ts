// The criteria of each log filter installed through the gateway, by filter id,
// so the log limits apply when eth_getFilterLogs / eth_getFilterChanges serve
// it: a range that grows with the head, or more logs than eth_getLogs may
// return, must not pass because it was asked for through a filter. Filters
// live in the one node the gateway forwards to, so its ids are unique here.
import { JsonRpcError } from './errors.ts'

/**
 * Geth drops a filter nobody polled for 5 minutes; one kept as long after its
 * last use here outlives Geth's copy. Forgotten after that.
 */
export const FILTER_IDLE_MS = 5 * 60_000
/** Every install is remembered until it expires, so an instance holds at most this many. */
export const MAX_LOG_FILTERS = 10_000

export type LogFilterCriteria = Record<string, unknown>

export type LogFilters = {
  /** Throws LIMIT_EXCEEDED while MAX_LOG_FILTERS filters are remembered. */
  assertRoom (): void
  remember (id: string, criteria: LogFilterCriteria): void
  /** A log filter's criteria (and marks it used), or undefined for a block filter or an id never seen. */
  criteriaOf (id: string): LogFilterCriteria | undefined
  forget (id: string): void
}

export function createLogFilters (now: () => number = Date.now): LogFilters {
  // Map order is last-use order: each use moves its entry to the end, so expired entries sit at the front.
  const filters = new Map<string, { criteria: LogFilterCriteria, usedAt: number }>()

  function dropExpired (): void {
    for (const [id, { usedAt }] of filters) {
      if (now() - usedAt <= FILTER_IDLE_MS) return
      filters.delete(id)
    }
  }

  return {
    assertRoom () {
      dropExpired()
      if (filters.size >= MAX_LOG_FILTERS) {
        throw new JsonRpcError('LIMIT_EXCEEDED', `${MAX_LOG_FILTERS} log filters are installed; uninstall some or let them expire`)
      }
    },
    remember (id, criteria) {
      filters.set(id, { criteria, usedAt: now() })
    },
    criteriaOf (id) {
      const entry = filters.get(id)
      if (entry === undefined) return undefined
      filters.delete(id)
      filters.set(id, { criteria: entry.criteria, usedAt: now() })
      return entry.criteria
    },
    forget (id) {
      filters.delete(id)
    }
  }
}
