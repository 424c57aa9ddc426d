// The JSON-RPC endpoint's fast path: a POST to / or /rpc without an API key,
// or with one that memory knows live (in the path, POST /rpc/<key>, or in
// X-API-Key or Authorization: Bearer), is answered from Node's own request and
// response, ahead of Fastify's router (plugins/front-door.ts). Fastify's
// lifecycle (its request and reply objects, the body parser, the hooks of
// every plugin) cost the process about as much CPU as Node's HTTP server
// itself, more than a kept answer's whole work (docs/json-rpc.md, "Fast
// path"). What the route's hooks do for such a request is done here with the
// same functions: the key is read as plugins/auth reads it (sent-key.ts) and
// checked with its lookup, the public budget or the key's is charged by the
// body's number of requests (plugins/rate-limit's chargePublicRpc and
// chargeKeyRpc), CORS headers are @fastify/cors's (plugins/cors's
// corsHeaders), the answer is the same handler's (core/json-rpc/handler.ts)
// and each call is timed into the same metrics. A request is taken only when
// its headers alone show that nothing else would apply to it; every other one
// (a key never seen or refused, two keys, a key in the query or
// percent-encoded, a body without a length or over the limit, an upgrade)
// goes to Fastify untouched, as do all while the app closes or logs each
// request (debug), or believes X-Forwarded-For (TRUST_PROXY). The equality of
// both paths' answers, headers included, is held by
// test/plugins/rpc-proxy/fast-path.test.ts.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import type { JsonRpcHandler } from '../../core/json-rpc/handler.ts'
import { rpcCost, rpcIds } from '../../core/json-rpc/rpc-items.ts'
import { keyRefusedAnswer, overLimitAnswer } from '../../core/json-rpc/errors.ts'
import { jsonRpcErrorBody, jsonRpcErrorOf, publicErrorOf } from '../../core/error-answers.ts'
import type { Metrics } from '../../core/metrics/index.ts'
import type { AccessBudget, RawClient, RpcCharge } from '../rate-limit/index.ts'
import type { ApiKeyLookup } from '../../core/api-keys/lookup.ts'
import { isPremiumKey } from '../../core/api-keys/store.ts'
import { bearerKey, CONFLICTING_KEYS, oneKey } from '../auth/sent-key.ts'
import type { RequestTaker } from '../front-door.ts'
import { logRequestError } from '../send-error.ts'

export type RpcFastPathOptions = {
  handler: JsonRpcHandler
  maxBodyBytes: number
  budget: AccessBudget
  /** plugins/auth's: a key is taken only when it says, from memory, that the key is live. */
  keys: ApiKeyLookup
  cors: (origin: string | undefined) => Array<[string, string]>
  /** Undefined with metrics off. */
  metrics: Metrics | undefined
  log: FastifyBaseLogger
  /** False while the app closes (Fastify then answers 503) or while the fast path must not be taken at all. */
  isOpen: () => boolean
}

/** The paths the route serves without a key in them. */
const PATHS = new Set(['/', '/rpc'])
/**
 * POST /rpc/<key>, the key one segment of the characters a key is made of:
 * nothing Fastify's router would decode (percent-encoding) or read apart (a query).
 */
const KEY_PATH = /^\/rpc\/([A-Za-z0-9_-]+)$/
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'
const HTTP_UNAUTHORIZED = 401
const HTTP_TOO_MANY_REQUESTS = 429
const HTTP_NO_CONTENT = 204
const MS_PER_S = 1000

export function createRpcFastPath (o: RpcFastPathOptions): RequestTaker {
  return (request, response) => {
    const sent = takenKey(request, o.maxBodyBytes)
    if (sent === undefined || !o.isOpen()) return false
    // Only a key memory knows live: one never seen costs a query, which plugins/auth charges to the
    // address first, and a refused one (revoked, malformed, ...) is answered 401 there and charged likewise.
    if (sent !== null && typeof o.keys.known(sent) !== 'object') return false
    const startedMs = performance.now()
    let text = ''
    // As Fastify's body parser reads a string: decoded as UTF-8 across chunks.
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => { text += chunk })
    // Node's parser reads exactly Content-Length bytes: the length needs no check here.
    // answer() answers its own failures; one in writing them leaves nothing to answer with.
    request.on('end', () => { answer(o, request, response, sent, text, startedMs).catch(() => response.destroy()) })
    // A client gone mid-body: there is no one to answer (Node closes the socket).
    request.on('error', () => {})
    return true
  }
}

/**
 * The API key the request sends (the same one plugins/auth would read, the
 * query apart), null when it sends none, or undefined when the request is not
 * one to take: it is Fastify's, which answers it as it always has.
 */
function takenKey (request: IncomingMessage, maxBodyBytes: number): string | null | undefined {
  if (request.method !== 'POST') return undefined
  const headers = request.headers
  // An upgrade (plugins/websocket) and a chunked body (no length to check first) are Fastify's.
  if (headers.upgrade !== undefined || headers['transfer-encoding'] !== undefined) return undefined
  const length = Number(headers['content-length'])
  // No body or one over the limit: Fastify answers those (an empty body's parse error, 413).
  if (!(length > 0 && length <= maxBodyBytes)) return undefined
  let inPath: string | undefined
  if (!PATHS.has(request.url!)) {
    inPath = KEY_PATH.exec(request.url!)?.[1]
    if (inPath === undefined) return undefined
  }
  const bearer = bearerKey(headers.authorization)
  // Another scheme carries no key, but is unusual enough to leave to Fastify.
  if (headers.authorization !== undefined && bearer === undefined) return undefined
  // Two different keys: Fastify refuses them (401, charged to the address).
  const key = oneKey([inPath, headers['x-api-key'], bearer])
  return key === CONFLICTING_KEYS ? undefined : key ?? null
}

/** The key's check and the rate-limit hook's count, then the route's handler; a failure of any is answered as the route's error handler answers it. */
async function answer (o: RpcFastPathOptions, request: IncomingMessage, response: ServerResponse, sent: string | null, text: string, startedMs: number): Promise<void> {
  const client: RawClient = { ip: request.socket.remoteAddress ?? '', headers: request.headers }
  let limitHeaders: RpcCharge['headers'] = []
  try {
    // Checked again now the body is read, when plugins/auth checks a JSON-RPC POST's key:
    // a key revoked (and heard of) while the body came is refused, as the route refuses it.
    const found = sent === null ? null : o.keys.find(sent)
    const key = found instanceof Promise ? await found : found
    if (typeof key === 'string') return await refuseKey(o, request, response, client, text, key)
    const { cost, batch } = o.budget.rpcCost({ apiKey: key }, text)
    const charged = key === null ? o.budget.chargePublicRpc(client, cost) : o.budget.chargeKeyRpc(key, client, cost)
    const charge = charged instanceof Promise ? await charged : charged
    limitHeaders = charge.headers
    if (charge.refused) return send(o, request, response, HTTP_TOO_MANY_REQUESTS, overLimitAnswer(rpcIds(text, batch)), limitHeaders)
    const { status, body, methods, outcomes } = await o.handler.handle(text, undefined, isPremiumKey(key))
    if (methods !== undefined) o.metrics!.observeJsonRpcCalls(methods, outcomes!, (performance.now() - startedMs) / MS_PER_S)
    send(o, request, response, status, body, limitHeaders)
  } catch (err) {
    const answered = publicErrorOf(err)
    logRequestError(o.log, err, answered, 'json-rpc')
    if (response.headersSent) {
      response.destroy()
      return
    }
    send(o, request, response, answered.status, JSON.stringify(jsonRpcErrorBody(rpcIds(text, rpcCost(text).batch), jsonRpcErrorOf(answered))), limitHeaders)
  }
}

/** As plugins/auth refuses a key: one request charged to the address (429 once its budget is spent), then 401 for the body's ids. */
async function refuseKey (o: RpcFastPathOptions, request: IncomingMessage, response: ServerResponse, client: RawClient, text: string, reason: string): Promise<void> {
  const charged = o.budget.chargePublicRpc(client, 1)
  const charge = charged instanceof Promise ? await charged : charged
  const ids = rpcIds(text, rpcCost(text).batch)
  if (charge.refused) return send(o, request, response, HTTP_TOO_MANY_REQUESTS, overLimitAnswer(ids), charge.headers)
  o.log.info({ channel: 'json-rpc', reason: `the key is ${reason}` }, 'API key refused')
  send(o, request, response, HTTP_UNAUTHORIZED, keyRefusedAnswer(ids), charge.headers)
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
