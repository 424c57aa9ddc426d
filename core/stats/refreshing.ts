// A value read from the database at most once per `maxAgeMs`, for counters an
// explorer's home page polls (Blockscout serves them from caches too): the
// sums behind them read whole tables, which one request a few seconds is
// cheap for and a thousand a second are not. Callers that arrive while a
// read is under way share it; a failed read is not kept.

export type Refreshed<T> = { value: T, computedAtMs: number }

export type Refreshing<T> = {
  get (): Promise<Refreshed<T>>
  /** Milliseconds until the next read is due (0: the next get reads). */
  dueInMs (): number
}

export function createRefreshing<T> (read: () => Promise<T>, maxAgeMs: number, now: () => number = Date.now): Refreshing<T> {
  let last: Refreshed<T> | undefined
  let pending: Promise<Refreshed<T>> | undefined
  const fresh = (entry: Refreshed<T> | undefined): entry is Refreshed<T> => entry !== undefined && now() - entry.computedAtMs < maxAgeMs
  return {
    async get () {
      if (fresh(last)) return last
      pending ??= (async () => {
        const startedAtMs = now()
        try {
          const value = await read()
          last = { value, computedAtMs: startedAtMs }
          return last
        } finally {
          pending = undefined
        }
      })()
      return await pending
    },
    dueInMs () {
      return last === undefined ? 0 : Math.max(0, maxAgeMs - (now() - last.computedAtMs))
    }
  }
}
