// The metadata document a URI names: inline (data: URIs, which on-chain
// collections use, or bare JSON), over HTTP(S), or on IPFS through a gateway.
// What comes back must be a JSON object.
import type { GuardedFetch } from './guarded-fetch.ts'

export type DocumentSources = { http: GuardedFetch, ipfsGateway: string }

const DATA_URI = /^data:([^,]*?)(;base64)?,(.*)$/is

/** An ipfs:// (or ipfs://ipfs/) URI through the gateway; other URIs as they are. */
export function gatewayUrl (uri: string, ipfsGateway: string): string {
  const ipfs = /^ipfs:\/\/(?:ipfs\/)?(.+)$/i.exec(uri)
  return ipfs === null ? uri : ipfsGateway.replace(/\/?$/, '/') + ipfs[1]
}

export async function readDocument (uri: string, sources: DocumentSources): Promise<Record<string, unknown>> {
  return asObject(JSON.parse(await documentText(uri, sources)))
}

async function documentText (uri: string, sources: DocumentSources): Promise<string> {
  const data = DATA_URI.exec(uri)
  if (data !== null) {
    const [, , base64, body] = data
    if (base64 !== undefined) return Buffer.from(body!, 'base64').toString('utf8')
    // Percent-encoded as RFC 2397 asks, or (as many on-chain collections write it) plain JSON, where a % is just a %.
    try {
      return decodeURIComponent(body!)
    } catch {
      return body!
    }
  }
  if (uri.startsWith('{')) return uri
  return await sources.http.getText(gatewayUrl(uri, sources.ipfsGateway))
}

function asObject (value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('the metadata is not a JSON object')
  return value as Record<string, unknown>
}
