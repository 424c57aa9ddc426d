// What a JSON-RPC body costs and whom a refusal answers, read from the raw
// text the rpc-proxy route receives. A single call (the common case) is
// never parsed here: only a batch is, to count it, and a single call only
// when it is refused, for its id.
import type { JsonRpcId } from './errors.ts'
import { idOf } from './handler.ts'

const OPEN_BRACKET = 0x5b

function isBatchText (text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    // JSON's whitespace: space, tab, line feed, carriage return.
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return c === OPEN_BRACKET
  }
  return false
}

function parse (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The requests a body holds: a batch's items (at least 1), otherwise 1. */
export function rpcCost (text: string): { cost: number, batch: unknown[] | undefined } {
  if (!isBatchText(text)) return { cost: 1, batch: undefined }
  const parsed = parse(text)
  // An empty batch is one (invalid) request, answered with one error.
  return Array.isArray(parsed) && parsed.length > 0 ? { cost: parsed.length, batch: parsed } : { cost: 1, batch: undefined }
}

/** The ids a refusal answers: each batch item's, or the single call's. */
export function rpcIds (text: string, batch: unknown[] | undefined): JsonRpcId | JsonRpcId[] {
  return batch !== undefined ? batch.map(idOf) : idOf(parse(text))
}
