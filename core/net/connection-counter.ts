// Open connections per client address (HTTP_MAX_CONNECTIONS_PER_ADDRESS), so
// that one client cannot take every connection the server accepts
// (HTTP_MAX_CONNECTIONS) and lock everybody else out: 1,000 idle sockets from
// one address did, for as long as Node let them wait for headers.
//
// Counted per clientBucket (IPv6 per /64, as the rate limiter counts: one
// subscriber holds a whole /64). Addresses the caller exempts (TRUST_PROXY's
// reverse proxies, behind which every client shares the proxy's address) are
// not counted: the total cap still holds for them, and the proxy limits its
// own clients.
import { clientBucket } from './client-bucket.ts'

export type ConnectionAdmission =
  /** Counted: call `release` once the connection has closed. */
  | { admitted: true, release: () => void }
  /** Over the address's share: close the connection. `first`: the first refused since the address last held none (log it once). */
  | { admitted: false, bucket: string, first: boolean }

export type ConnectionCounter = {
  /** A new connection from `address` (undefined when its socket is already gone: not counted). */
  admit (address: string | undefined): ConnectionAdmission
  /** Connections counted now from the bucket of `address`. */
  count (address: string): number
}

export type ConnectionCounterOptions = {
  maxPerAddress: number
  /** Addresses never counted (trusted proxies). */
  isExempt?: (address: string) => boolean
}

const UNCOUNTED: ConnectionAdmission = { admitted: true, release: () => {} }

export function createConnectionCounter ({ maxPerAddress, isExempt = () => false }: ConnectionCounterOptions): ConnectionCounter {
  // Only buckets holding a connection are kept: the map is bounded by the connections open.
  const buckets = new Map<string, { open: number, refused: boolean }>()
  return {
    admit (address) {
      if (address === undefined || isExempt(address)) return UNCOUNTED
      const bucket = clientBucket(address)
      let entry = buckets.get(bucket)
      if (entry === undefined) {
        entry = { open: 0, refused: false }
        buckets.set(bucket, entry)
      }
      if (entry.open >= maxPerAddress) {
        const first = !entry.refused
        entry.refused = true
        return { admitted: false, bucket, first }
      }
      entry.open++
      const held = entry
      let released = false
      return {
        admitted: true,
        release: () => {
          if (released) return
          released = true
          held.open--
          if (held.open === 0) buckets.delete(bucket)
        }
      }
    },
    count: (address) => buckets.get(clientBucket(address))?.open ?? 0
  }
}
