// A value read from the database at most once per `maxAgeMs`, for counters an
// explorer's home page polls (Blockscout serves them from caches too): the
// gas oracle behind them reads the newest blocks' transactions, which one
// request every few seconds is cheap for and a thousand a second are not. Only the first read is waited for: once a value is there, a caller
// that finds it stale gets it at once and starts the next read in the
// background (one at a time), so no request waits out a table scan. A failed
// read keeps the old value; the next caller tries again.

export type Refreshed<T> = { value: T, computedAtMs: number }

export type Refreshing<T> = {
  get (): Promise<Refreshed<T>>
  /**
   * The value there now, without a promise (a stale one starts the next read,
   * as get does); undefined before the first read has ended.
   */
  peek (): Refreshed<T> | undefined
  /** Milliseconds until the next read is due (0: the next get reads). */
  dueInMs (): number
}

export type RefreshingOptions = {
  maxAgeMs: number
  /** A background read that failed: the last value stays served. */
  onError?: (err: unknown) => void
  now?: () => number
}

export function createRefreshing<T> (read: () => Promise<T>, { maxAgeMs, onError = () => {}, now = Date.now }: RefreshingOptions): Refreshing<T> {
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
    if (last !== undefined && now() - last.computedAtMs >= maxAgeMs) refresh().catch(onError)
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
