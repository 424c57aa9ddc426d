// The JSON-RPC fast path's tests (test/plugins/rpc-proxy/fast-path*.test.ts)
// ask one body of the fast path and of the route and compare the answers.
// A path ending in `?` is the route's alone: the fast path never takes a
// request with a query, and Fastify reads `/rpc?` as `/rpc`.
import type { Test } from 'tap'
import { request as httpRequest, type Agent, type IncomingHttpHeaders } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import type { ApiKeyFound } from '../../core/api-keys/lookup.ts'

export type Answer = { status: number, headers: IncomingHttpHeaders, text: string, reusedSocket: boolean }
export type PostOptions = {
  headers?: Record<string, string>
  agent?: Agent
  /** Sends the headers and the body's first half, awaits this, then the rest. */
  midBody?: () => Promise<void>
}

const JSON_HEADERS = { 'content-type': 'application/json' }
/** Headers that differ between any two answers (the clock), or by the budget already spent. */
const VARYING = new Set(['date', 'x-ratelimit-remaining', 'ratelimit', 'x-ratelimit-reset', 'retry-after'])

export const rpcCall = (method: string, id: unknown = 1, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params })

export function stableHeaders (headers: IncomingHttpHeaders): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !VARYING.has(name)))
}

export type FastPathProbe = {
  /** A POST from `localAddress` (127.0.0.N: a budget of its own), the body as bytes (a string is UTF-8). */
  post (localAddress: string, path: string, body: string | Buffer, o?: PostOptions): Promise<Answer>
  /**
   * The same body to the fast path at `path` and to the route (`path?`), from
   * one address: the same answer, headers included, with one budget spent by both.
   */
  sameAsRoute (t: Test, name: string, body: string | Buffer, o?: { headers?: Record<string, string>, path?: string }): Promise<Answer>
  /** A loopback address no other request came from. */
  newAddress (): string
}

export function probeFastPath (app: FastifyInstance, url: string): FastPathProbe {
  const { port } = new URL(url)
  let nextAddress = 2
  const newAddress = (): string => `127.0.0.${nextAddress++}`
  const post = async (localAddress: string, path: string, body: string | Buffer, o: PostOptions = {}): Promise<Answer> => await new Promise((resolve, reject) => {
    const headers = { ...(o.headers ?? JSON_HEADERS), 'content-length': String(Buffer.byteLength(body)) }
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', localAddress, headers, agent: o.agent }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, reusedSocket: req.reusedSocket }))
    })
    req.on('error', reject)
    if (o.midBody === undefined) return req.end(body)
    const bytes = Buffer.from(body)
    req.write(bytes.subarray(0, bytes.length >> 1))
    o.midBody().then(() => req.end(bytes.subarray(bytes.length >> 1)), reject)
  })
  const sameAsRoute = async (t: Test, name: string, body: string | Buffer, o: { headers?: Record<string, string>, path?: string } = {}): Promise<Answer> => {
    const address = newAddress()
    const path = o.path ?? '/rpc'
    const taken = app.frontDoor.taken()
    const fast = await post(address, path, body, o)
    t.equal(app.frontDoor.taken(), taken + 1, `${name}: the fast path took it`)
    const route = await post(address, `${path}?`, body, o)
    t.equal(app.frontDoor.taken(), taken + 1, `${name}: ${path}? went to the route`)
    t.equal(fast.status, route.status, `${name}: status`)
    t.equal(fast.text, route.text, `${name}: body`)
    t.same(stableHeaders(fast.headers), stableHeaders(route.headers), `${name}: headers`)
    // Limits off: nothing counted (the limit's headers absent on both, as compared).
    if (fast.headers['x-ratelimit-limit'] === undefined) return fast
    const spent = Number(fast.headers['x-ratelimit-remaining']) - Number(route.headers['x-ratelimit-remaining'])
    t.ok(spent >= 1, `${name}: both counted against one budget`)
    return fast
  }
  return { post, sameAsRoute, newAddress }
}

/**
 * Waits until this instance's key lookup says of `key` what `settled` wants:
 * a key's creation or revocation is heard through PostgreSQL's NOTIFY, within
 * milliseconds, not at once.
 */
export async function untilLookup (app: FastifyInstance, key: string, settled: (found: ApiKeyFound | undefined) => boolean): Promise<void> {
  await until(() => settled(app.apiKeys.lookup.known(key)), 'the key lookup to hear of the change')
}

export async function until (condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`)
    await sleep(10)
  }
}

export const isLive = (found: ApiKeyFound | undefined): boolean => typeof found === 'object'
export const isRevoked = (found: ApiKeyFound | undefined): boolean => found === 'revoked'
