// The operator's ADMIN_TOKEN, presented as `Authorization: Bearer <token>`
// (the admin API, /metrics from afar).
import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * Compared as SHA-256 digests: equal lengths for timingSafeEqual, so neither
 * the token's length nor its first differing byte shows in the time taken.
 */
export function createBearerTokenCheck (token: string): (authorization: string | undefined) => boolean {
  const digest = sha256(token)
  return (authorization) => {
    if (authorization === undefined) return false
    const match = /^Bearer\s+(\S+)$/i.exec(authorization)
    return match !== null && timingSafeEqual(sha256(match[1]!), digest)
  }
}

function sha256 (text: string): Buffer {
  return createHash('sha256').update(text).digest()
}
