// The bundled selector table (signatures.json, written by
// scripts/gen-signatures.ts): fragments by selector and by topic, in the
// table's order, which is the order candidates are tried in.
import { EventFragment, FunctionFragment } from 'ethers'
import signatures from './signatures.json' with { type: 'json' }

function group<F> (entries: Array<{ key: string, fragment: string }>, parse: (text: string) => F): Map<string, F[]> {
  const byKey = new Map<string, F[]>()
  for (const { key, fragment } of entries) {
    const list = byKey.get(key) ?? []
    list.push(parse(fragment))
    byKey.set(key, list)
  }
  return byKey
}

const FUNCTIONS = group(signatures.functions.map((f) => ({ key: f.selector, fragment: f.fragment })), (text) => FunctionFragment.from(text))
const EVENTS = group(signatures.events.map((e) => ({ key: e.topic, fragment: e.fragment })), (text) => EventFragment.from(text))

/** The table's functions with this 0x-selector (lowercase), first to try first. */
export function tableFunctions (selector: string): readonly FunctionFragment[] {
  return FUNCTIONS.get(selector) ?? []
}

/** The table's events with this topic 0 (lowercase 0x-hex). */
export function tableEvents (topic: string): readonly EventFragment[] {
  return EVENTS.get(topic) ?? []
}
