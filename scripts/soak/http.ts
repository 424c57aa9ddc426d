// The soak's HTTP client: a keep-alive pool on loopback that returns the
// status, the body and the tag of each answer, and can revalidate what it
// was sent before as a browser or CDN does (If-None-Match with the tag it
// kept for that URL, 304 reusing the kept body).
import { Pool } from 'undici'

const REQUEST_TIMEOUT_MS = 60_000

export type SoakRequest = { method: 'GET' | 'POST', path: string, headers?: Record<string, string>, body?: string }

export type SoakResponse = { status: number, text: string, etag: string | undefined }

export type SoakClient = {
  send (request: SoakRequest, revalidate: boolean): Promise<SoakResponse>
  close (): Promise<void>
}

export function createSoakClient (origin: string, connections: number): SoakClient {
  const pool = new Pool(origin, { connections, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS })
  // What a shared cache in front would hold: the newest tag and body per URL.
  const kept = new Map<string, { etag: string, text: string }>()
  let closed: Promise<void> | undefined
  return {
    async send ({ method, path, headers = {}, body }, revalidate) {
      const held = revalidate && method === 'GET' ? kept.get(path) : undefined
      const response = await pool.request({ method, path, body, headers: held === undefined ? headers : { ...headers, 'if-none-match': held.etag } })
      const text = await response.body.text()
      const etag = response.headers.etag === undefined ? undefined : String(response.headers.etag)
      if (response.statusCode === 304 && held !== undefined) return { status: 304, text: held.text, etag }
      if (revalidate && response.statusCode === 200 && etag !== undefined) kept.set(path, { etag, text })
      return { status: response.statusCode, text, etag }
    },
    close: async () => await (closed ??= pool.close())
  }
}
