// What a JSON-RPC body costs and whom a refusal answers, read from the raw
// text the rpc-proxy route receives. A single call (the common case) is
// never parsed here unless it may name a trace: only a batch is, to count
// it, and a single call when it is refused, for its id.
import type { JsonRpcId } from './errors.ts'
import { idOf } from './handler.ts'
import { isTraceMethod } from './trace-options.ts'

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

/**
 * The requests a body counts as: a batch's items (at least 1), otherwise 1;
 * each debug_trace* call counts `traceWeight` (a premium key's RPC_TRACE_WEIGHT).
 */
export function rpcCost (text: string, traceWeight = 1): { cost: number, batch: unknown[] | undefined } {
  if (!isBatchText(text)) {
    const traced = traceWeight > 1 && mayNameTrace(text) && isTraceCall(parse(text))
    return { cost: traced ? traceWeight : 1, batch: undefined }
  }
  const parsed = parse(text)
  // An empty batch is one (invalid) request, answered with one error.
  if (!Array.isArray(parsed) || parsed.length === 0) return { cost: 1, batch: undefined }
  let cost = parsed.length
  if (traceWeight > 1) for (const item of parsed) if (isTraceCall(item)) cost += traceWeight - 1
  return { cost, batch: parsed }
}

/** Whether a single call's text may name a trace method: in clear, or spelt with JSON escapes. */
function mayNameTrace (text: string): boolean {
  return text.includes('debug_trace') || text.includes('\\')
}

function isTraceCall (item: unknown): boolean {
  const method = (item as { method?: unknown } | null)?.method
  return typeof method === 'string' && isTraceMethod(method)
}

/** The ids a refusal answers: each batch item's, or the single call's. */
export function rpcIds (text: string, batch: unknown[] | undefined): JsonRpcId | JsonRpcId[] {
  return batch !== undefined ? batch.map(idOf) : idOf(parse(text))
}
