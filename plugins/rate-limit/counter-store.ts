// core/rate-limit's counters as an @fastify/rate-limit store. The library's
// stores add one per request, but a JSON-RPC batch costs one per item: the
// cost rides in front of the counter key the library hands the store
// ("<cost> <key>", made by the plugin's keyGenerator).
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type { CounterStore } from '../../core/rate-limit/counters.ts'

export function costedKey (cost: number, key: string): string {
  return `${cost} ${key}`
}

export function counterStoreClass (counters: CounterStore, windowMs: number): FastifyRateLimitStoreCtor {
  return class CostedCounterStore implements FastifyRateLimitStore {
    // The library (10.x) passes the window and the client's limit after the callback; its types leave them out.
    incr (key: string, callback: (error: Error | null, result?: { current: number, ttl: number }) => void, _timeWindow?: number, max?: number): void {
      if (max === undefined) return callback(new Error('@fastify/rate-limit passed the store no limit'))
      const space = key.indexOf(' ')
      const state = counters.incr(key.slice(space + 1), Number(key.slice(0, space)), windowMs, max)
      if (!(state instanceof Promise)) return callback(null, { current: state.count, ttl: state.ttlMs })
      state.then(({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }), (err: Error) => callback(err))
    }

    child (): FastifyRateLimitStore {
      return this
    }
  }
}
