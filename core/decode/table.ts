// Selector tables: fragments by selector and by topic, in the order they
// are tried. The bundled one comes from signatures.json (written by
// scripts/gen-signatures.ts); an ABI table is built from verified ABIs
// (core/verify/abi-source.ts), one fragment per signature, the first added
// kept, so every instance that added the same ABIs in the same order answers
// alike.
import { EventFragment, Fragment, FunctionFragment } from 'ethers'
import signatures from './signatures.json' with { type: 'json' }

export type SelectorTable = {
  /** Functions with this 0x-selector (lowercase), first to try first. */
  functions (selector: string): readonly FunctionFragment[]
  /** Events with this topic 0 (lowercase 0x-hex). */
  events (topic: string): readonly EventFragment[]
}

export type AbiTable = SelectorTable & {
  /** Adds an ABI's functions and events; entries ethers cannot read are skipped. */
  add (abi: readonly unknown[]): void
  /** Distinct fragments held. */
  readonly size: number
}

function push<F> (byKey: Map<string, F[]>, key: string, fragment: F): void {
  const list = byKey.get(key)
  if (list === undefined) byKey.set(key, [fragment])
  else list.push(fragment)
}

const NONE: readonly never[] = []

function tableOf (functions: Map<string, FunctionFragment[]>, events: Map<string, EventFragment[]>): SelectorTable {
  return {
    functions: (selector) => functions.get(selector) ?? NONE,
    events: (topic) => events.get(topic) ?? NONE
  }
}

const bundledFunctions = new Map<string, FunctionFragment[]>()
const bundledEvents = new Map<string, EventFragment[]>()
for (const f of signatures.functions) push(bundledFunctions, f.selector, FunctionFragment.from(f.fragment))
for (const e of signatures.events) push(bundledEvents, e.topic, EventFragment.from(e.fragment))

/** The bundled table of common signatures. */
export const BUNDLED_TABLE: SelectorTable = tableOf(bundledFunctions, bundledEvents)

/** A table with nothing in it: an instance without verified contracts. */
export const EMPTY_TABLE: SelectorTable = tableOf(new Map(), new Map())

/** Parsed, or undefined for an entry that is no fragment ethers knows (a later compiler's kind). */
function fragmentOf (item: unknown): Fragment | undefined {
  try {
    return Fragment.from(item as never)
  } catch {
    return undefined
  }
}

/**
 * An empty table that ABIs are added to. Two fragments are the same when
 * their types are (an event's indexed flags too): parameter names aside, the
 * first one added is kept, the later one would decode the same data.
 */
export function createAbiTable (): AbiTable {
  const functions = new Map<string, FunctionFragment[]>()
  const events = new Map<string, EventFragment[]>()
  const seen = new Set<string>()
  return {
    ...tableOf(functions, events),
    add (abi) {
      for (const item of abi) {
        const fragment = fragmentOf(item)
        if (FunctionFragment.isFragment(fragment)) {
          const key = fragment.format('sighash')
          if (!seen.has(key)) { seen.add(key); push(functions, fragment.selector, fragment) }
        } else if (EventFragment.isFragment(fragment) && !fragment.anonymous) {
          const key = 'event ' + fragment.format('minimal')
          if (!seen.has(key)) { seen.add(key); push(events, fragment.topicHash, fragment) }
        }
      }
    },
    get size () { return seen.size }
  }
}
