// A bounded least-recently-used map: a Map keeps insertion order, so a hit
// is moved to the end and the first key is the one to evict.
export type Lru<V> = { get (key: string): V | undefined, set (key: string, value: V): void, clear (): void, readonly size: number }

export function createLru<V> (maxEntries: number): Lru<V> {
  const entries = new Map<string, V>()
  return {
    get (key) {
      const value = entries.get(key)
      if (value !== undefined) {
        entries.delete(key)
        entries.set(key, value)
      }
      return value
    },
    set (key, value) {
      entries.delete(key)
      entries.set(key, value)
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!)
    },
    clear () { entries.clear() },
    get size () { return entries.size }
  }
}
