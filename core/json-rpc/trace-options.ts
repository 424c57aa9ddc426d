// The debug_trace* methods premium keys may call, and their options: Geth's
// built-in tracers only, never JavaScript (Geth runs any other tracer name
// as JavaScript code, in its own process), held to the gateway's limits
// before they reach Geth:
// - `timeout`, Geth's tracer timeout (one per transaction of a block trace),
//   is at most RPC_TRACE_TIMEOUT_MS: a shorter one asked is kept;
// - the struct logger (no `tracer`) never copies memory at each step
//   (`enableMemory`: megabytes a step, which would hold Geth's memory), never
//   writes to Geth's log (`debug`), and stops after as many steps as could
//   fit in RPC_TRACE_MAX_BYTES: reaching that `limit` makes an answer over
//   the size cap, which is refused whole rather than served cut short.
import * as p from './params.ts'

export const TRACE_METHODS: ReadonlySet<string> = new Set(['debug_traceTransaction', 'debug_traceCall', 'debug_traceBlockByNumber', 'debug_traceBlockByHash'])
/** Geth's native tracers; without `tracer`, its struct logger. */
export const BUILT_IN_TRACERS: readonly string[] = ['callTracer', 'prestateTracer', '4byteTracer', 'noopTracer']

export type TraceLimits = {
  /** RPC_TRACE_TIMEOUT_MS */
  traceTimeoutMs: number
  /** RPC_TRACE_MAX_BYTES */
  traceMaxBytes: number
}

/**
 * The fewest bytes one struct log step takes in Geth's answer:
 * `{"pc":0,"op":"LT","gas":0,"gasCost":0,"depth":1}` (stack, memory and
 * storage left out), without the comma between steps.
 */
export const MIN_STRUCT_LOG_BYTES = 47
/** Geth's own default: how many blocks back it may re-execute to rebuild a state it pruned. */
const MAX_REEXEC = 128

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }
// Go's time.ParseDuration, unsigned: "300ms", "1.5s", "2m30s".
const DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y

/** A Go duration in milliseconds; undefined when it is not one. */
export function durationMs (text: string): number | undefined {
  let ms = 0
  let at = 0
  while (at < text.length) {
    DURATION_PART.lastIndex = at
    const part = DURATION_PART.exec(text)
    if (part === null) return undefined
    ms += Number(part[1]) * UNIT_MS[part[2]!]!
    at = DURATION_PART.lastIndex
  }
  return at === 0 ? undefined : ms
}

export function isTraceMethod (method: string): boolean {
  return TRACE_METHODS.has(method)
}

const tracer: p.Check = (v) => typeof v === 'string' && BUILT_IN_TRACERS.includes(v)
  ? undefined
  : `only Geth's built-in tracers are served (${BUILT_IN_TRACERS.join(', ')}, or none for the struct logger), never a JavaScript tracer; got ${p.describe(v)}`

const timeout: p.Check = (v) => {
  const ms = typeof v === 'string' ? durationMs(v) : undefined
  return ms !== undefined && ms > 0 ? undefined : `expected a positive Go duration such as "5s" or "500ms", got ${p.describe(v)}`
}

const count = (max: number): p.Check => (v) =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max ? undefined : `expected an integer 0..${max}, got ${p.describe(v)}`

const object: p.Check = (v) => p.isObject(v) ? undefined : `expected an object, got ${p.describe(v)}`

const TRACE_CONFIG_FIELDS: Record<string, p.Check> = {
  tracer,
  timeout,
  tracerConfig: object,
  reexec: count(MAX_REEXEC),
  enableMemory: p.bool,
  disableStack: p.bool,
  disableStorage: p.bool,
  enableReturnData: p.bool,
  debug: p.bool,
  limit: count(Number.MAX_SAFE_INTEGER)
}

/** debug_traceTransaction's and the block traces' options (Geth's TraceConfig). */
export const traceConfig = p.fields(TRACE_CONFIG_FIELDS)
/** debug_traceCall's: a TraceConfig, state and block overrides. */
export const traceCallConfig = p.fields({ ...TRACE_CONFIG_FIELDS, stateOverrides: p.stateOverrides, blockOverrides: object })

/** A checked trace call's params with the options held to the limits (see the top of this file): what goes to Geth. */
export function limitTraceParams (method: string, params: unknown[], limits: TraceLimits): unknown[] {
  const at = method === 'debug_traceCall' ? 2 : 1
  const config: Record<string, unknown> = { ...(params[at] as Record<string, unknown> | null | undefined) }
  const askedMs = typeof config.timeout === 'string' ? durationMs(config.timeout) : undefined
  config.timeout = `${Math.min(askedMs ?? Infinity, limits.traceTimeoutMs)}ms`
  if (config.tracer === undefined || config.tracer === null) {
    config.enableMemory = false
    config.debug = false
    const maxSteps = Math.floor(limits.traceMaxBytes / MIN_STRUCT_LOG_BYTES) + 1
    const asked = typeof config.limit === 'number' ? config.limit : 0
    config.limit = asked > 0 ? Math.min(asked, maxSteps) : maxSteps
  }
  // The params before the config are required or filled in (validateParams).
  return [...params.slice(0, at), config]
}
