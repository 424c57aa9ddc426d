// Fixed-window counters in this process: the store without REDIS_URL, and
// the fallback while Redis is away.

export type CounterState = { count: number, ttlMs: number }

type Window = { count: number, endsAtMs: number }

/** Windows kept before expired ones are swept (one per client seen in the last minute). */
const SWEEP_AT_SIZE = 50_000

export type MemoryCounters = { incr (key: string, cost: number, windowMs: number): CounterState }

export function createMemoryCounters (): MemoryCounters {
  const windows = new Map<string, Window>()

  function sweep (nowMs: number): void {
    for (const [key, w] of windows) if (w.endsAtMs <= nowMs) windows.delete(key)
  }

  return {
    incr (key, cost, windowMs) {
      const nowMs = Date.now()
      let w = windows.get(key)
      if (w === undefined || w.endsAtMs <= nowMs) {
        if (w === undefined && windows.size >= SWEEP_AT_SIZE) sweep(nowMs)
        w = { count: 0, endsAtMs: nowMs + windowMs }
        windows.set(key, w)
      }
      w.count += cost
      return { count: w.count, ttlMs: w.endsAtMs - nowMs }
    }
  }
}
