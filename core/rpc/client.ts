// A JSON-RPC client over a keep-alive connection pool to one node. The proxy
// forwards raw bodies through it; core code calls methods by name.
import { Pool } from 'undici'
import { RetryableError } from '../errors.ts'

const DEFAULT_CONNECTIONS = 64
const JSON_HEADERS = { 'content-type': 'application/json' }
/** Geth refuses batches over 1000 calls (--rpc.batch-request-limit); stay well under. */
const MAX_BATCH_CALLS = 500
/** Geth's answer to the items after its 25 MB batch response limit. */
const RESPONSE_TOO_LARGE_CODE = -32003

/** A JSON-RPC error the node answered with: the request reached it. */
export class RpcResponseError extends Error {
  override readonly name = 'RpcResponseError'
  constructor (readonly code: number, message: string, readonly data?: unknown) {
    super(message)
  }
}

/** The node did not answer (refused, reset, timed out, 5xx): retry later. */
export class RpcUnavailableError extends RetryableError {
  override readonly name = 'RpcUnavailableError'
}

/** The node's answer was larger than the caller would read (send's maxBytes): it was not read further. */
export class RpcAnswerTooLargeError extends Error {
  override readonly name = 'RpcAnswerTooLargeError'
  constructor (readonly maxBytes: number) {
    super(`the node's answer is larger than ${maxBytes} bytes`)
  }
}

export type RpcClientOptions = {
  url: string
  timeoutMs: number
  connections?: number
}

/** `upstream`: the node that answered instead of the local one (core/json-rpc/failover.ts); such answers are never kept. */
export type RawRpcResponse = { status: number, body: string, upstream?: string }

/** One call of a JSON-RPC batch. */
export type RpcCall = { method: string, params: unknown[] }

export type RpcItemAnswer = { result?: unknown, error?: { code: number, message: string, data?: unknown }, upstream?: string }

export type RpcClient = {
  readonly url: string
  /** Sends a JSON text as is and returns the node's answer as text; with `maxBytes`, an answer over it throws RpcAnswerTooLargeError. */
  send (body: string, signal?: AbortSignal, maxBytes?: number): Promise<RawRpcResponse>
  call<T = unknown> (method: string, params?: unknown[], signal?: AbortSignal): Promise<T>
  /** One JSON-RPC batch; each item's result or error, in the order asked. */
  batchAnswers (calls: RpcCall[], signal?: AbortSignal): Promise<RpcItemAnswer[]>
  /** One JSON-RPC batch; results in the order asked. Any item's error rejects the whole call. */
  batch<T = unknown> (calls: RpcCall[], signal?: AbortSignal): Promise<T[]>
  close (): Promise<void>
}

export function createRpcClient ({ url, timeoutMs, connections = DEFAULT_CONNECTIONS }: RpcClientOptions): RpcClient {
  const target = new URL(url)
  const path = target.pathname + target.search
  const pool = new Pool(target.origin, {
    connections,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 30_000
  })
  let nextId = 1

  async function send (body: string, signal?: AbortSignal, maxBytes?: number): Promise<RawRpcResponse> {
    try {
      const { statusCode, text } = await post(body, signal, maxBytes)
      if (statusCode >= 500) throw new RpcUnavailableError(`node answered HTTP ${statusCode}`)
      return { status: statusCode, body: text }
    } catch (err) {
      if (err instanceof RpcUnavailableError || err instanceof RpcAnswerTooLargeError) throw err
      throw new RpcUnavailableError(`node at ${target.origin} did not answer: ${(err as Error).message}`, { cause: err })
    }
  }

  /**
   * POSTs `body` and collects the answer's bytes, through undici's dispatch:
   * its request() wraps every answer in a readable stream, which cost a call
   * to the node more CPU than reading its few bytes does (bench:rpc-cpu).
   */
  async function post (body: string, signal?: AbortSignal, maxBytes = Infinity): Promise<{ statusCode: number, text: string }> {
    signal?.throwIfAborted()
    return await new Promise((resolve, reject) => {
      let statusCode = 0
      let chunks: Buffer[] = []
      let bytes = 0
      let stopWatching = (): void => {}
      pool.dispatch({ path, method: 'POST', headers: JSON_HEADERS, body }, {
        onRequestStart (controller) {
          if (signal === undefined) return
          stopWatching()
          const abort = (): void => controller.abort(signal.reason as Error)
          signal.addEventListener('abort', abort, { once: true })
          stopWatching = () => signal.removeEventListener('abort', abort)
        },
        // Also called for an informational (1xx) answer, which the final one follows.
        onResponseStart (_controller, status) {
          statusCode = status
          chunks = []
          bytes = 0
        },
        // Past maxBytes the answer is dropped, its connection with it (the abort ends in onResponseError).
        onResponseData (controller, chunk) {
          bytes += chunk.length
          if (bytes > maxBytes) controller.abort(new RpcAnswerTooLargeError(maxBytes))
          else chunks.push(chunk)
        },
        onResponseEnd () {
          stopWatching()
          resolve({ statusCode, text: Buffer.concat(chunks).toString('utf8') })
        },
        onResponseError (_controller, err) {
          stopWatching()
          reject(err)
        }
      })
    })
  }

  async function call<T> (method: string, params: unknown[] = [], signal?: AbortSignal): Promise<T> {
    const { status, body } = await send(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }), signal)
    let parsed: { result?: T, error?: { code: number, message: string, data?: unknown } }
    try {
      parsed = JSON.parse(body)
    } catch {
      throw new RpcUnavailableError(`node answered HTTP ${status} with a body that is not JSON`)
    }
    if (parsed.error) throw new RpcResponseError(parsed.error.code, parsed.error.message, parsed.error.data)
    return parsed.result as T
  }

  /** Sends calls as batches of at most MAX_BATCH_CALLS; items the node found too large go again in smaller batches. */
  async function batchAnswers (calls: RpcCall[], signal?: AbortSignal, chunk = MAX_BATCH_CALLS): Promise<RpcItemAnswer[]> {
    if (calls.length === 0) return []
    const answers: RpcItemAnswer[] = []
    for (let start = 0; start < calls.length; start += chunk) answers.push(...await sendBatch(calls.slice(start, start + chunk), signal))
    const tooLarge = answers.flatMap((a, i) => a.error?.code === RESPONSE_TOO_LARGE_CODE ? [i] : [])
    if (tooLarge.length === 0 || chunk === 1) return answers
    const retried = await batchAnswers(tooLarge.map((i) => calls[i]!), signal, Math.max(1, Math.floor(chunk / 4)))
    tooLarge.forEach((i, j) => { answers[i] = retried[j]! })
    return answers
  }

  async function sendBatch (calls: RpcCall[], signal?: AbortSignal): Promise<RpcItemAnswer[]> {
    const { status, body } = await send(JSON.stringify(calls.map((c, id) => ({ jsonrpc: '2.0', id, method: c.method, params: c.params }))), signal)
    let parsed: Array<RpcItemAnswer & { id: number }>
    try {
      parsed = JSON.parse(body)
    } catch {
      throw new RpcUnavailableError(`node answered HTTP ${status} with a body that is not JSON`)
    }
    if (!Array.isArray(parsed)) throw new RpcUnavailableError(`node answered a batch with ${body.slice(0, 200)}`)
    const answers = new Array<RpcItemAnswer>(calls.length)
    for (const answer of parsed) answers[answer.id] = answer
    for (let i = 0; i < answers.length; i++) answers[i] ??= { error: { code: -32603, message: 'no answer for this batch item' } }
    return answers
  }

  async function batch<T> (calls: RpcCall[], signal?: AbortSignal): Promise<T[]> {
    const answers = await batchAnswers(calls, signal)
    return answers.map((answer, i) => {
      if (answer.error) throw new RpcResponseError(answer.error.code, `${calls[i]?.method}: ${answer.error.message}`, answer.error.data)
      return answer.result as T
    })
  }

  return { url, send, call, batch, batchAnswers, close: () => pool.close() }
}
