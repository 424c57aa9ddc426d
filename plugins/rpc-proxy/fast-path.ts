// The JSON-RPC endpoint's fast path: a POST to / or /rpc that sends no API key
// is answered from Node's own request and response, ahead of Fastify's router
// (plugins/front-door.ts). Fastify's lifecycle (its request and reply
// objects, the body parser, the hooks of every plugin) cost the process about
// as much CPU as Node's HTTP server itself, more than a kept answer's whole
// work (docs/json-rpc.md, "Fast path"). What the route's hooks do for such a
// request is done here with the same functions: the public budget is charged
// by the body's number of requests (plugins/rate-limit's chargePublicRpc),
// CORS headers are @fastify/cors's (plugins/cors's corsHeaders), the answer
// is the same handler's (core/json-rpc/handler.ts) and each call is timed into
// the same metrics. A request is taken only when its headers alone show that
// nothing else would apply to it; every other one (a key in a header, the
// query or the path, a body without a length or over the limit, an upgrade)
// goes to Fastify untouched, as do all while the app closes or logs each
// request (debug), or believes X-Forwarded-For (TRUST_PROXY). The equality of
// both paths' answers, headers included, is held by
// test/plugins/rpc-proxy/fast-path.test.ts.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import type { JsonRpcHandler } from '../../core/json-rpc/handler.ts'
import { rpcCost, rpcIds } from '../../core/json-rpc/rpc-items.ts'
import { overLimitAnswer } from '../../core/json-rpc/errors.ts'
import { jsonRpcErrorBody, jsonRpcErrorOf, publicErrorOf } from '../../core/error-answers.ts'
import type { Metrics } from '../../core/metrics/index.ts'
import type { AccessBudget, RpcCharge } from '../rate-limit/index.ts'
import type { RequestTaker } from '../front-door.ts'
import { logRequestError } from '../send-error.ts'

export type RpcFastPathOptions = {
  handler: JsonRpcHandler
  maxBodyBytes: number
  budget: AccessBudget
  cors: (origin: string | undefined) => Array<[string, string]>
  /** Undefined with metrics off. */
  metrics: Metrics | undefined
  log: FastifyBaseLogger
  /** False while the app closes (Fastify then answers 503) or while the fast path must not be taken at all. */
  isOpen: () => boolean
}

/** The paths the route serves without a key in them (POST /rpc/<key> goes to Fastify, which reads it). */
const PATHS = new Set(['/', '/rpc'])
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'
const HTTP_TOO_MANY_REQUESTS = 429
const HTTP_NO_CONTENT = 204
const MS_PER_S = 1000

export function createRpcFastPath (o: RpcFastPathOptions): RequestTaker {
  return (request, response) => {
    if (!takes(request, o.maxBodyBytes) || !o.isOpen()) return false
    const startedMs = performance.now()
    let text = ''
    // As Fastify's body parser reads a string: decoded as UTF-8 across chunks.
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => { text += chunk })
    // Node's parser reads exactly Content-Length bytes: the length needs no check here.
    // answer() answers its own failures; one in writing them leaves nothing to answer with.
    request.on('end', () => { answer(o, request, response, text, startedMs).catch(() => response.destroy()) })
    // A client gone mid-body: there is no one to answer (Node closes the socket).
    request.on('error', () => {})
    return true
  }
}

/** Whether the headers show a request nothing but the endpoint's public counting applies to. */
function takes (request: IncomingMessage, maxBodyBytes: number): boolean {
  if (request.method !== 'POST' || !PATHS.has(request.url!)) return false
  const headers = request.headers
  // Keys (plugins/auth/sent-key.ts), an upgrade (plugins/websocket) and a chunked body (no length to check first) are Fastify's.
  if (headers['x-api-key'] !== undefined || headers.authorization !== undefined || headers.upgrade !== undefined || headers['transfer-encoding'] !== undefined) return false
  const length = Number(headers['content-length'])
  // No body or one over the limit: Fastify answers those (an empty body's parse error, 413).
  return length > 0 && length <= maxBodyBytes
}

/** The rate-limit hook's count, then the route's handler; a failure of either is answered as the route's error handler answers it. */
async function answer (o: RpcFastPathOptions, request: IncomingMessage, response: ServerResponse, text: string, startedMs: number): Promise<void> {
  const { cost, batch } = rpcCost(text)
  let limitHeaders: RpcCharge['headers'] = []
  try {
    const charged = o.budget.chargePublicRpc({ ip: request.socket.remoteAddress ?? '', headers: request.headers }, cost)
    const charge = charged instanceof Promise ? await charged : charged
    limitHeaders = charge.headers
    if (charge.refused) return send(o, request, response, HTTP_TOO_MANY_REQUESTS, overLimitAnswer(rpcIds(text, batch)), limitHeaders)
    const { status, body, methods, outcomes } = await o.handler.handle(text)
    if (methods !== undefined) {
      const seconds = (performance.now() - startedMs) / MS_PER_S
      for (const [i, method] of methods.entries()) o.metrics!.observeJsonRpc(method, outcomes![i]!, seconds)
    }
    send(o, request, response, status, body, limitHeaders)
  } catch (err) {
    const answered = publicErrorOf(err)
    logRequestError(o.log, err, answered, 'json-rpc')
    if (response.headersSent) {
      response.destroy()
      return
    }
    send(o, request, response, answered.status, JSON.stringify(jsonRpcErrorBody(rpcIds(text, batch), jsonRpcErrorOf(answered))), limitHeaders)
  }
}

/** The status, the body and the headers Fastify's reply would have: CORS's (its hook's, first), the limit's, then the body's. */
function send (o: RpcFastPathOptions, request: IncomingMessage, response: ServerResponse, status: number, body: string | undefined, extra: RpcCharge['headers']): void {
  const headers: Record<string, string | number> = {}
  for (const [name, value] of o.cors(request.headers.origin)) headers[name] = value
  for (const [name, value] of extra) headers[name] = value
  if (body !== undefined) {
    headers['content-type'] = JSON_CONTENT_TYPE
    headers['content-length'] = Buffer.byteLength(body)
  } else if (status !== HTTP_NO_CONTENT) {
    headers['content-length'] = '0'
  }
  response.writeHead(status, headers)
  response.end(body)
}
