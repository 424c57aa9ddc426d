// The answers about what a new block cannot change (a block by hash, a mined
// transaction's receipt, a balance at a block number), kept by bytes with the
// least recently used dropped first. Each is filed under the block it is
// about, so that a reorg can drop every answer above its fork point at once.
//
// Bytes are counted as the key's and the answer's lengths (JSON text is ASCII,
// one byte a character in V8) plus ENTRY_OVERHEAD_BYTES for the entry, the
// map slots and the block index: an estimate, close enough to bound memory.

/** A Map entry, its object and its place in the block index, roughly. */
export const ENTRY_OVERHEAD_BYTES = 120

export type KeptAnswers = {
  /** The answer's JSON text, now the most recently used; undefined when not kept. */
  get (key: string): string | undefined
  /** Keeps `text` for `key`, about block `block`; the least recently used go until it fits. Too large alone: not kept. */
  set (key: string, text: string, block: number): void
  /** Drops every answer about a block above `block`. */
  dropAbove (block: number): void
  clear (): void
  stats (): { entries: number, bytes: number }
}

type Entry = { text: string, block: number, bytes: number }

export function createKeptAnswers (maxBytes: number): KeptAnswers {
  // A Map iterates in insertion order: re-inserting on use makes its first key the least recently used.
  const entries = new Map<string, Entry>()
  const byBlock = new Map<number, Set<string>>()
  let bytes = 0

  function forget (key: string, entry: Entry): void {
    entries.delete(key)
    bytes -= entry.bytes
    const keys = byBlock.get(entry.block)
    keys?.delete(key)
    if (keys?.size === 0) byBlock.delete(entry.block)
  }

  return {
    get (key) {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      entries.delete(key)
      entries.set(key, entry)
      return entry.text
    },
    set (key, text, block) {
      const size = key.length + text.length + ENTRY_OVERHEAD_BYTES
      if (size > maxBytes) return
      const old = entries.get(key)
      if (old !== undefined) forget(key, old)
      const entry = { text, block, bytes: size }
      entries.set(key, entry)
      bytes += size
      let keys = byBlock.get(block)
      if (keys === undefined) byBlock.set(block, keys = new Set())
      keys.add(key)
      for (const [oldest, e] of entries) {
        if (bytes <= maxBytes) break
        forget(oldest, e)
      }
    },
    dropAbove (block) {
      for (const [number, keys] of byBlock) {
        if (number <= block) continue
        for (const key of keys) {
          const entry = entries.get(key)!
          entries.delete(key)
          bytes -= entry.bytes
        }
        byBlock.delete(number)
      }
    },
    clear () {
      entries.clear()
      byBlock.clear()
      bytes = 0
    },
    stats: () => ({ entries: entries.size, bytes })
  }
}
