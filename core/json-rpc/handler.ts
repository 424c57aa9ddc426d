// The public JSON-RPC endpoint's logic, framework-free: parse, check the
// envelope, the method and its params, answer locally or forward to the node.
// A batch is forwarded as one batch; each item keeps its own answer and id.
// Answers that cannot have changed come from the cache (answer-cache.ts) as
// the result's JSON text, with the request's own id written around it.
import type { Logger } from '../logger.ts'
import type { RpcClient } from '../rpc/client.ts'
import { RpcAnswerTooLargeError, RpcUnavailableError, type RpcItemAnswer } from '../rpc/client.ts'
import { JSON_RPC_ERRORS, JsonRpcError, errorResponse, type JsonRpcId, type JsonRpcResponse } from './errors.ts'
import { isAllowedMethod, isJoinable, isPremiumMethod, isSocketOnly, validateParams } from './methods.ts'
import { TRACE_METHODS, isTraceMethod, limitTraceParams, type TraceLimits } from './trace-options.ts'
import { isNestedDeeperThan } from './params.ts'
import { createRpcBatcher } from '../rpc/batcher.ts'
import { createLogLimits, type LogLimits } from './log-limits.ts'
import { createLogFilters, type LogFilterCriteria, type LogFilters } from './log-filters.ts'
import type { SharedLogFilters } from './shared-log-filters.ts'
import type { DevAccounts } from './dev-accounts.ts'
import { INVALID_METHOD } from '../metrics/index.ts'
import { outcomeLabel, outcomeOf, outcomeOfBody } from './outcomes.ts'
import type { AnswerCache, CachePlan, FreshAnswer } from './answer-cache.ts'
import { freshFromBody, freshFromItem, keptAnswer } from './answer-text.ts'

export type JsonRpcLimits = { maxBatch: number, maxLogRange: number, maxLogResults: number } & TraceLimits

export type JsonRpcHandlerOptions = {
  rpc: RpcClient
  chainId: number
  limits: JsonRpcLimits
  devAccounts: DevAccounts
  /** Log filters' criteria shared with the other instances on the database; without it, this instance's own only. */
  sharedFilters?: SharedLogFilters
  log: Logger
  /** Set for metrics: each reply then names its calls' methods (`methods`). */
  labelMethods?: boolean
  /** Answers kept per head and past it (answer-cache.ts); undefined: every call goes to the node. */
  cache?: AnswerCache | undefined
}

/** What the HTTP layer sends: a status and a JSON text, or no body (notifications only). */
export type JsonRpcReply = {
  status: number
  body: string | undefined
  /** With labelMethods: each call's method, INVALID_METHOD for what names none we serve (at least one entry). */
  methods?: string[]
  /** With labelMethods, beside `methods`: each call's outcome, `ok` or its error's code (outcomeLabel). */
  outcomes?: string[]
}

/** A WebSocket connection's own methods (eth_subscribe, eth_unsubscribe): answers the call or throws a JsonRpcError. */
export type SocketCalls = (method: string, params: unknown[]) => Promise<unknown>

export type JsonRpcHandler = {
  /**
   * Answers a request's text; `socket` when it came over a WebSocket, which serves its socket-only methods;
   * `premium` when it came with a premium API key, which may call the premium methods (traces, txpool_status).
   */
  handle (text: string, socket?: SocketCalls, premium?: boolean): Promise<JsonRpcReply>
}

/** What labelMethods collects from a request for the metrics. */
type Seen = { items: unknown[], outcomes: string[] }
/** A checked request: ready to answer. `id` undefined means a notification. */
type Call = { id: JsonRpcId | undefined, method: string, params: unknown[] }
/** Who asks: over a WebSocket (`socket`, its own methods), with a premium API key or not. */
type Caller = { socket: SocketCalls | undefined, premium: boolean }
/** A request refused before it was served; `id` undefined: a notification, which gets no answer. */
type Refusal = { id: JsonRpcId | undefined, error: JsonRpcError }
/** An answer: a response to serialise, or one already serialised (a kept result with the request's id written in). */
type Answer = JsonRpcResponse | string
/** A call whose answer may be kept, missed: `flight` is what Geth answers, shared with identical calls. */
type Miss = { call: Call, plan: CachePlan, flight: ReturnType<AnswerCache['join']> }

/**
 * Deepest nesting of arrays and objects in `params` (the array itself is one
 * level). The deepest real param, a call's access list, needs 5; serialising
 * thousands of levels would overflow the stack.
 */
export const MAX_PARAMS_DEPTH = 16
/** Methods the gateway answers itself or checks around forwarding; every other one passes through untouched. */
const NOT_FORWARDED_AS_IS = new Set(['eth_getLogs', 'eth_newFilter', 'eth_getFilterLogs', 'eth_getFilterChanges', 'eth_uninstallFilter',
  'eth_sendTransaction', 'eth_chainId', 'net_version', 'eth_subscribe', 'eth_unsubscribe', ...TRACE_METHODS])

const HTTP_OK = 200
const HTTP_NO_CONTENT = 204
const HTTP_SERVICE_UNAVAILABLE = 503
/** What Geth answers to a single notification: HTTP 200 and nothing in the body. */
const NO_ANSWER: JsonRpcReply = { status: HTTP_OK, body: undefined }

export function createJsonRpcHandler (o: JsonRpcHandlerOptions): JsonRpcHandler {
  const batcher = createRpcBatcher(o.rpc)
  const logLimits = createLogLimits({ rpc: o.rpc, maxLogRange: o.limits.maxLogRange, maxLogResults: o.limits.maxLogResults })
  const logFilters = createLogFilters()
  // Answered here: the gateway checked Geth's chain ID at start, and wallets ask often.
  const local: Record<string, () => unknown> = {
    eth_chainId: () => '0x' + o.chainId.toString(16),
    net_version: () => String(o.chainId)
  }

  async function handle (text: string, socket?: SocketCalls, premium = false): Promise<JsonRpcReply> {
    const caller: Caller = { socket, premium }
    if (o.labelMethods !== true) return await answer(text, caller)
    const seen = { items: [] as unknown[], outcomes: [] as string[] }
    const result = await answer(text, caller, seen)
    result.methods = seen.items.length === 0 ? [INVALID_METHOD] : seen.items.map(methodLabel)
    result.outcomes = seen.outcomes
    return result
  }

  /**
   * `seen` gets the request's items and each one's outcome, for the metrics: no item when it was not JSON
   * or the batch was refused whole (one outcome then, the refusal's).
   */
  async function answer (text: string, caller: Caller, seen?: Seen): Promise<JsonRpcReply> {
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return refuseWhole(new JsonRpcError('PARSE_ERROR'), seen)
    }
    if (!Array.isArray(body)) {
      seen?.items.push(body)
      return await handleSingle(body, caller, seen?.outcomes)
    }
    if (body.length === 0) return refuseWhole(new JsonRpcError('INVALID_REQUEST', 'empty batch'), seen)
    if (body.length > o.limits.maxBatch) {
      return refuseWhole(new JsonRpcError('INVALID_REQUEST', `batch of ${body.length} requests is larger than the limit of ${o.limits.maxBatch}`), seen)
    }
    seen?.items.push(...body)
    const answers = await handleBatch(body, caller, seen?.outcomes)
    // What JSON.stringify(answers) gives, with kept answers written in as they are.
    return answers.length === 0
      ? { status: HTTP_NO_CONTENT, body: undefined }
      : { status: HTTP_OK, body: '[' + answers.map((a) => typeof a === 'string' ? a : JSON.stringify(a)).join(',') + ']' }
  }

  async function handleSingle (item: unknown, caller: Caller, outcomes?: string[]): Promise<JsonRpcReply> {
    const checked = checkRequest(item, caller)
    if ('error' in checked) {
      outcomes?.push(outcomeLabel(checked.error.code))
      return checked.id === undefined ? NO_ANSWER : reply(HTTP_OK, errorResponse(checked.id, checked.error))
    }
    const call = checked
    const plan = call.id === undefined ? undefined : o.cache?.plan(call.method, call.params)
    let answer: Answer | undefined
    let failure: JsonRpcError | undefined
    try {
      if (call.method in local) {
        // What answerCalls answers it with, without its batch machinery: wallets ask eth_chainId alone and often.
        answer = done(call, local[call.method]!())
      } else if (plan !== undefined) {
        answer = await answerKept(call, plan)
      } else if (isJoinable(call.method)) {
        // The hot path: cheap reads share batches to the node under load.
        const { result, error } = await batcher.call(call.method, call.params)
        answer = error === undefined ? done(call, result) : { jsonrpc: '2.0', id: call.id ?? null, error }
      } else if (isForwardedAsIs(call)) {
        // The node's answer passes through untouched.
        const { status, body } = await o.rpc.send(JSON.stringify({ jsonrpc: '2.0', id: call.id, method: call.method, params: call.params }))
        if (status !== HTTP_OK) throw new JsonRpcError('INTERNAL_ERROR', `the node answered HTTP ${status}`)
        outcomes?.push(outcomeOfBody(call.id, body))
        return call.id === undefined ? NO_ANSWER : { status: HTTP_OK, body }
      } else {
        [answer] = await answerCalls([call], caller.socket)
      }
    } catch (err) {
      failure = toJsonRpcError(err, o.log)
      answer = failed(call, failure)
    }
    // A notification has no answer: ok unless it failed here.
    outcomes?.push(failure === undefined ? outcomeOf(answer) : outcomeLabel(failure.code))
    if (call.id === undefined || answer === undefined) return NO_ANSWER
    if (typeof answer === 'string') return { status: HTTP_OK, body: answer }
    // A single request the node could not serve is a 503, so load balancers and retries see it.
    const unavailable = 'error' in answer && answer.error.code === JSON_RPC_ERRORS.INTERNAL_ERROR.code
    return reply(unavailable ? HTTP_SERVICE_UNAVAILABLE : HTTP_OK, answer)
  }

  /** A call whose answer may be kept: the kept one, or Geth's, asked once for every identical call of the same head. */
  async function answerKept (call: Call, plan: CachePlan): Promise<Answer> {
    const text = o.cache!.find(plan)
    if (text !== undefined) return keptAnswer(call.id ?? null, text)
    const flight = o.cache!.join(plan)
    if (flight.settle !== undefined) fetchFresh(plan).then(flight.settle, (err: unknown) => flight.fail!(toJsonRpcError(err, o.log)))
    return freshAnswer(call, await flight.answer)
  }

  async function fetchFresh (plan: CachePlan): Promise<FreshAnswer> {
    if (isJoinable(plan.method)) return freshFromItem(await batcher.call(plan.method, plan.params))
    // Alone (eth_call, eth_estimateGas): the params' text is the key's, and the result is cut out of Geth's answer unparsed.
    const { status, body, upstream } = await o.rpc.send(`{"jsonrpc":"2.0","id":0,"method":"${plan.method}","params":${plan.paramsText}}`)
    if (status !== HTTP_OK) throw new JsonRpcError('INTERNAL_ERROR', `the node answered HTTP ${status}`)
    return freshFromBody(body, upstream)
  }

  /**
   * A trace, sent alone with its options held to the limits (trace-options.ts); Geth's answer is read no
   * further than RPC_TRACE_MAX_BYTES and passed on unparsed. Never kept: a trace is asked again of Geth.
   */
  async function answerTrace (call: Call): Promise<Answer | undefined> {
    const text = JSON.stringify({ jsonrpc: '2.0', id: 0, method: call.method, params: limitTraceParams(call.method, call.params, o.limits) })
    let response
    try {
      response = await o.rpc.send(text, undefined, o.limits.traceMaxBytes)
    } catch (err) {
      if (!(err instanceof RpcAnswerTooLargeError)) throw err
      throw new JsonRpcError('LIMIT_EXCEEDED', `the trace is larger than ${err.maxBytes} bytes (RPC_TRACE_MAX_BYTES): ask for less, such as ` +
        'callTracer with {"onlyTopCall": true}, the struct logger with disableStack, disableStorage or a smaller limit, or one transaction rather than a block')
    }
    if (response.status !== HTTP_OK) throw new JsonRpcError('INTERNAL_ERROR', `the node answered HTTP ${response.status}`)
    return call.id === undefined ? undefined : freshAnswer(call, freshFromBody(response.body))
  }

  async function handleBatch (items: unknown[], caller: Caller, outcomes?: string[]): Promise<Answer[]> {
    const checked = items.map((item) => checkRequest(item, caller))
    const calls = checked.filter((c): c is Call => !('error' in c))
    const answers = await answerCalls(calls, caller.socket)
    let next = 0
    const all = checked.map((c) => 'error' in c ? (c.id === undefined ? undefined : errorResponse(c.id, c.error)) : answers[next++])
    outcomes?.push(...checked.map((c, i) => 'error' in c ? outcomeLabel(c.error.code) : outcomeOf(all[i])))
    return all.filter((a): a is Answer => a !== undefined)
  }

  /**
   * Answers calls in order (undefined for notifications): local and kept ones
   * here, the rest (misses of the cache among them) in one batch to the node.
   */
  async function answerCalls (calls: Call[], socket: SocketCalls | undefined): Promise<Array<Answer | undefined>> {
    const steps = await Promise.all(calls.map(async (call): Promise<Answer | Call | Miss | undefined> => {
      try {
        if (call.method in local) return done(call, local[call.method]!())
        // checkRequest let it through only with a socket.
        if (isSocketOnly(call.method)) return done(call, await socket!(call.method, call.params))
        if (call.method === 'eth_sendTransaction') return done(call, await o.devAccounts.sendTransaction(call.params[0] as Record<string, string>))
        if (isTraceMethod(call.method)) return await answerTrace(call)
        const plan = call.id === undefined ? undefined : o.cache?.plan(call.method, call.params)
        if (plan !== undefined) {
          const text = o.cache!.find(plan)
          return text === undefined ? { call, plan, flight: o.cache!.join(plan) } : keptAnswer(call.id ?? null, text)
        }
        await checkBeforeForwarding(call)
        return call
      } catch (err) {
        return failed(call, toJsonRpcError(err, o.log))
      }
    }))
    const toForward = steps.filter((s): s is Call => s !== undefined && typeof s !== 'string' && 'method' in s)
    const misses = steps.filter((s): s is Miss => s !== undefined && typeof s !== 'string' && 'plan' in s)
    const forwarded = await forward(toForward, misses.filter((m) => m.flight.settle !== undefined))
    // After forwarding: a miss may wait for an identical call of this same batch.
    const missed = new Map(await Promise.all(misses.map(async (m) => [m, await settled(m)] as const)))
    return steps.map((s) => {
      if (s === undefined || typeof s === 'string') return s
      if ('plan' in s) return missed.get(s)
      return 'method' in s ? forwarded.get(s) : s
    })
  }

  async function settled (miss: Miss): Promise<Answer> {
    try {
      return freshAnswer(miss.call, await miss.flight.answer)
    } catch (err) {
      return failed(miss.call, toJsonRpcError(err, o.log))!
    }
  }
  /** The log limits a call must meet before it reaches the node. */
  async function checkBeforeForwarding (call: Call): Promise<void> {
    if (call.method === 'eth_getLogs') await logLimits.checkRange(call.params[0] as Record<string, unknown>)
    if (call.method === 'eth_newFilter') {
      logFilters.assertRoom()
      await logLimits.checkRange(call.params[0] as Record<string, unknown>)
    }
    if (call.method === 'eth_getFilterLogs' || call.method === 'eth_getFilterChanges') {
      // Checked again each time: a filter without toBlock spans more blocks as the head moves.
      const criteria = await criteriaOf(call.params[0] as string)
      if (criteria !== undefined) await logLimits.checkRange(criteria)
    }
    if (call.method === 'eth_uninstallFilter') {
      logFilters.forget(call.params[0] as string)
      o.sharedFilters?.forget(call.params[0] as string)
    }
  }

  /** A log filter's criteria, whichever instance made it; remembered here once read. */
  async function criteriaOf (id: string): Promise<LogFilterCriteria | undefined> {
    let criteria = logFilters.criteriaOf(id)
    if (criteria === undefined && o.sharedFilters !== undefined) {
      criteria = await o.sharedFilters.load(id)
      if (criteria !== undefined) logFilters.remember(id, criteria)
    }
    if (criteria !== undefined) o.sharedFilters?.touch(id)
    return criteria
  }

  /** Sends calls, and the misses this request asks first, as one batch; settles the misses' flights with Geth's answers. */
  async function forward (calls: Call[], owned: Miss[]): Promise<Map<Call, JsonRpcResponse | undefined>> {
    const results = new Map<Call, JsonRpcResponse | undefined>()
    if (calls.length + owned.length === 0) return results
    // The client's ids may repeat: the client numbers the batch by position and maps the answers back.
    let answers: RpcItemAnswer[]
    try {
      answers = await o.rpc.batchAnswers([
        ...calls.map((c) => ({ method: c.method, params: c.params })),
        ...owned.map((m) => ({ method: m.plan.method, params: m.plan.params }))
      ])
    } catch (err) {
      const error = toJsonRpcError(err, o.log)
      for (const c of calls) results.set(c, failed(c, error))
      for (const m of owned) m.flight.fail!(error)
      return results
    }
    const saved: Array<Promise<void>> = []
    for (const [i, c] of calls.entries()) {
      const answer = answers[i]!
      if (answer.error !== undefined) results.set(c, c.id === undefined ? undefined : { jsonrpc: '2.0', id: c.id, error: answer.error })
      else results.set(c, checkResult(c, answer.result, logLimits, logFilters))
      // Written before the client hears of the filter, so that any instance it asks next knows it.
      if (c.method === 'eth_newFilter' && typeof answer.result === 'string' && o.sharedFilters !== undefined) {
        saved.push(o.sharedFilters.save(answer.result, c.params[0] as LogFilterCriteria))
      }
    }
    for (const [i, m] of owned.entries()) m.flight.settle!(freshFromItem(answers[calls.length + i]!))
    await Promise.all(saved)
    return results
  }

  return { handle }
}

function isForwardedAsIs (call: Call): boolean {
  return !NOT_FORWARDED_AS_IS.has(call.method)
}

/** The node's answer to a forwarded call, held to the log limits; a new log filter is remembered. Undefined for a notification. */
function checkResult (call: Call, result: unknown, logLimits: LogLimits, logFilters: LogFilters): JsonRpcResponse | undefined {
  if (call.method === 'eth_newFilter' && typeof result === 'string') logFilters.remember(result, call.params[0] as Record<string, unknown>)
  // A filter's logs are held to the cap whether or not this instance made the filter (it may have been made
  // through another instance on the same node, or before a restart): logs are objects, a block or pending
  // transaction filter's changes hashes.
  const servesLogs = call.method === 'eth_getLogs' ||
    ((call.method === 'eth_getFilterLogs' || call.method === 'eth_getFilterChanges') && (logFilters.criteriaOf(call.params[0] as string) !== undefined || holdsObjects(result)))
  const error = servesLogs ? logLimits.checkResults(result) : undefined
  return error === undefined ? done(call, result) : failed(call, error)
}

function holdsObjects (result: unknown): boolean {
  return Array.isArray(result) && typeof result[0] === 'object' && result[0] !== null
}

/**
 * Checks the JSON-RPC envelope, the method and its params. A request that is
 * not JSON-RPC is answered with what can be read of its id (JSON-RPC 2.0);
 * past the envelope, a notification is refused without an answer, as Geth does.
 */
function checkRequest (item: unknown, caller: Caller): Call | Refusal {
  const invalid = (reason: string): Refusal => ({ id: idOf(item), error: new JsonRpcError('INVALID_REQUEST', reason) })
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return invalid('a request must be an object')
  const r = item as Record<string, unknown>
  if (r.jsonrpc !== '2.0') return invalid('jsonrpc must be "2.0"')
  if (typeof r.method !== 'string') return invalid('method must be a string')
  if ('id' in r && r.id !== null && typeof r.id !== 'string' && typeof r.id !== 'number') return invalid('id must be a string, a number or null')
  if (r.params !== undefined && (r.params === null || typeof r.params !== 'object')) return invalid('params must be an array')
  const id = 'id' in r ? r.id as JsonRpcId : undefined
  const refused = (kind: 'METHOD_NOT_FOUND' | 'INVALID_PARAMS' | 'PREMIUM_ONLY', reason: string): Refusal => ({ id, error: new JsonRpcError(kind, reason) })
  if (!isAllowedMethod(r.method)) return refused('METHOD_NOT_FOUND', `the method ${r.method.slice(0, 100)} does not exist or is not available`)
  if (!caller.premium && isPremiumMethod(r.method)) return refused('PREMIUM_ONLY', `${r.method} is served to premium API keys only: send one (POST /rpc/<key>, or the x-api-key header)`)
  if (caller.socket === undefined && isSocketOnly(r.method)) return refused('METHOD_NOT_FOUND', `${r.method} needs a WebSocket: connect to ws://<host>/ws (notifications are not supported over HTTP)`)
  if (r.params !== undefined && !Array.isArray(r.params)) return refused('INVALID_PARAMS', 'params must be given by position, as an array')
  if (isNestedDeeperThan(r.params, MAX_PARAMS_DEPTH)) return refused('INVALID_PARAMS', `params nest deeper than ${MAX_PARAMS_DEPTH} levels`)
  const checked = validateParams(r.method, (r.params as unknown[] | undefined) ?? [])
  if ('reason' in checked) return refused('INVALID_PARAMS', checked.reason)
  return { id, method: r.method, params: checked.params }
}

/** A method we serve, or INVALID_METHOD: a client's text never becomes a metric label. */
function methodLabel (item: unknown): string {
  const method = (item as { method?: unknown } | null)?.method
  return typeof method === 'string' && isAllowedMethod(method) ? method : INVALID_METHOD
}

export function idOf (item: unknown): JsonRpcId {
  const id = (item as { id?: unknown } | null)?.id
  return typeof id === 'string' || typeof id === 'number' ? id : null
}

function freshAnswer (call: Call, fresh: FreshAnswer): Answer {
  return 'error' in fresh ? { jsonrpc: '2.0', id: call.id ?? null, error: fresh.error } : keptAnswer(call.id ?? null, fresh.text)
}

function done (call: Call, result: unknown): JsonRpcResponse | undefined {
  return call.id === undefined ? undefined : { jsonrpc: '2.0', id: call.id, result }
}

function failed (call: Call, error: JsonRpcError): JsonRpcResponse | undefined {
  return call.id === undefined ? undefined : errorResponse(call.id, error)
}

/** A request answered with one error, before any item was read (not JSON, an empty or oversized batch). */
function refuseWhole (error: JsonRpcError, seen: Seen | undefined): JsonRpcReply {
  seen?.outcomes.push(outcomeLabel(error.code))
  return reply(HTTP_OK, errorResponse(null, error))
}

function reply (status: number, body: unknown): JsonRpcReply {
  return { status, body: JSON.stringify(body) }
}

function toJsonRpcError (err: unknown, log: Logger): JsonRpcError {
  if (err instanceof JsonRpcError) return err
  if (err instanceof RpcUnavailableError) {
    log.warn({ err: err.message }, 'node unavailable')
    return new JsonRpcError('INTERNAL_ERROR', 'the node is unavailable; try again shortly')
  }
  log.error({ err }, 'json-rpc request failed')
  return new JsonRpcError('INTERNAL_ERROR')
}
