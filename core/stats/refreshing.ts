// A value read from the database at most once per `maxAgeMs`, for counters an
// explorer's home page polls (Blockscout serves them from caches too): the
// gas oracle behind them reads the newest blocks' transactions, which one
// request every few seconds is cheap for and a thousand a second are not. Only the first read is waited for: once a value is there, a caller
// that finds it stale gets it at once and starts the next read in the
// background (one at a time), so no request waits out a table scan. A failed
// read keeps the old value; the next caller tries again.
//
// With `maxServedAgeMs`, that is only so within the bound: a value that old
// is never served, and the caller waits for the read it starts. After a quiet
// spell, the first caller would otherwise get figures from before it (the
// explorer's home page showed 547 blocks at head 2308).

export type Refreshed<T> = { value: T, computedAtMs: number }

export type Refreshing<T> = {
  get (): Promise<Refreshed<T>>
  /**
   * The value there now, without a promise (a stale one starts the next read,
   * as get does); undefined before the first read has ended, or when the value
   * is past maxServedAgeMs (get then waits for the next read).
   */
  peek (): Refreshed<T> | undefined
  /** Milliseconds until the next read is due (0: the next get reads). */
  dueInMs (): number
}

export type RefreshingOptions = {
  /** A value this old starts the next read (served meanwhile, within maxServedAgeMs). */
  maxAgeMs: number
  /**
   * A value this old is not served: callers wait for the next read, and meet
   * its error if it fails. Unbounded when absent.
   */
  maxServedAgeMs?: number
  /** A background read that failed: the last value stays served. */
  onError?: (err: unknown) => void
  now?: () => number
}

export function createRefreshing<T> (read: () => Promise<T>, { maxAgeMs, maxServedAgeMs = Infinity, onError = () => {}, now = Date.now }: RefreshingOptions): Refreshing<T> {
  let last: Refreshed<T> | undefined
  let pending: Promise<Refreshed<T>> | undefined
  const refresh = (): Promise<Refreshed<T>> => {
    pending ??= (async () => {
      const startedAtMs = now()
      try {
        last = { value: await read(), computedAtMs: startedAtMs }
        return last
      } finally {
        pending = undefined
      }
    })()
    return pending
  }
  const peek = (): Refreshed<T> | undefined => {
    if (last === undefined) return undefined
    const ageMs = now() - last.computedAtMs
    if (ageMs >= maxServedAgeMs) return undefined
    if (ageMs >= maxAgeMs) refresh().catch(onError)
    return last
  }
  return {
    get: async () => peek() ?? await refresh(),
    peek,
    dueInMs () {
      return last === undefined ? 0 : Math.max(0, maxAgeMs - (now() - last.computedAtMs))
    }
  }
}
