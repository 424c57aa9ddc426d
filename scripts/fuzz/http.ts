// One HTTP exchange with the gateway, over a keep-alive pool on loopback. A
// request carries a short description for fast-check to print: a shrunk
// counterexample of a 6 MiB body must not flood the terminal.
import { connect } from 'node:net'
import fc from 'fast-check'
import { Pool } from 'undici'

/** A request that takes longer than this counts as a hang. */
export const REQUEST_TIMEOUT_MS = 60_000
const PRINTED_CHARS = 1500
/**
 * Bodies this large go over a plain socket: the gateway answers one over its
 * limit with 413 and closes before reading it all (as it should), and undici
 * then reports the failed write (EPIPE) instead of the answer it was sent.
 */
const RAW_BODY_BYTES = 1024 * 1024

export type FuzzRequest = {
  method: 'GET' | 'POST'
  /** Path and query, already encoded as it goes on the wire. */
  path: string
  headers?: Record<string, string>
  body?: string | Buffer
}

/**
 * `reset`: a body of RAW_BODY_BYTES or more got a connection reset and no
 * answer. The gateway answers one over its limit with 413 and closes without
 * reading the rest; the unread bytes make the kernel reset the connection,
 * which can drop the 413 before the client reads it (no lingering close).
 */
export type FuzzResponse = { status: number, contentType: string, text: string, reset?: boolean }

export type HttpClient = { send (request: FuzzRequest): Promise<FuzzResponse>, close (): Promise<void> }

export function createHttpClient (origin: string, connections: number): HttpClient {
  const pool = new Pool(origin, { connections, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS })
  let closed: Promise<void> | undefined
  return {
    async send ({ method, path, headers, body }) {
      if (body !== undefined && body.length >= RAW_BODY_BYTES) return await sendOverSocket(new URL(origin), { method, path, headers, body })
      const response = await pool.request({ method, path, headers, body })
      const text = await response.body.text()
      return { status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), text }
    },
    close: async () => await (closed ??= pool.close())
  }
}

/** Gives the request a printable form of bounded length (fast-check prints counterexamples with it). */
export function describe (request: FuzzRequest): FuzzRequest {
  const body = request.body === undefined ? '' : ` body(${request.body.length} bytes): ${clip(request.body.toString())}`
  const text = `${request.method} ${clip(request.path)}${request.headers === undefined ? '' : ' ' + JSON.stringify(request.headers)}${body}`
  return Object.assign(request, { [fc.toStringMethod]: () => text })
}

const clip = (text: string): string => text.length <= PRINTED_CHARS ? text : `${text.slice(0, PRINTED_CHARS)}... (${text.length} chars)`

/** One request on its own connection, answer read whatever becomes of the write. */
async function sendOverSocket (origin: URL, { method, path, headers = {}, body = '' }: FuzzRequest): Promise<FuzzResponse> {
  return await new Promise((resolve, reject) => {
    const socket = connect(Number(origin.port), origin.hostname)
    const chunks: Buffer[] = []
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy(new Error('timed out')))
    // EPIPE or a reset once the gateway closed: what it answered before is in `chunks`.
    socket.on('error', () => {})
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString()
      const match = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(raw.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, ''))
      if (raw === '') { resolve({ status: 0, contentType: '', text: '', reset: true }); return }
      if (match === null) { reject(new Error(`no HTTP answer: ${JSON.stringify(raw.slice(0, 200))}`)); return }
      const contentType = /^content-type: *(.*)$/im.exec(match[2]!)?.[1] ?? ''
      resolve({ status: Number(match[1]), contentType, text: match[3]! })
    })
    const head = [`${method} ${path} HTTP/1.1`, `host: ${origin.host}`, 'connection: close', `content-length: ${Buffer.byteLength(body)}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n')
    socket.write(head + '\r\n\r\n')
    socket.end(body)
  })
}
