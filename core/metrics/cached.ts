// A figure /metrics reads from the node or the database, asked at most once
// per `ms` however often (and by however many scrapers) /metrics is read;
// concurrent scrapes share the one question in flight.
export function cachedFor<T> (ms: number, read: () => Promise<T>): () => Promise<T> {
  let cached: { at: number, value: Promise<T> } | undefined
  return async () => {
    if (cached === undefined || Date.now() - cached.at > ms) cached = { at: Date.now(), value: read() }
    return await cached.value
  }
}
