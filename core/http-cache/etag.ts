// Entity tags of the answers kept by the head-keyed cache (index.ts) and the
// If-None-Match test that turns a repeated request into 304 Not Modified.
import { createHash } from 'node:crypto'

/** The newest indexed block: what every cached answer was read at. */
export type IndexedHead = { number: number, hash: string }

/** Characters of the digest kept in a tag: 96 bits, no collision to fear among one URL's answers. */
const DIGEST_CHARS = 16

/**
 * A weak tag: the head's number (readable when debugging) and a digest of the
 * head's hash, the request's key (path, query and the request headers the
 * body depends on) and the body. The head alone would do to tell blocks
 * apart; the body makes an answer that changed with no new block (a contract
 * verified, token metadata read) a new tag too, and lets instances on the
 * same head that read the same body give the same tag behind one balancer.
 * Weak (W/): a proxy that compresses the body keeps it valid.
 */
export function entityTag (head: IndexedHead, key: string, body: string | Buffer): string {
  const digest = createHash('sha1').update(head.hash).update('\n').update(key).update('\n').update(body).digest('base64url')
  return `W/"${head.number}-${digest.slice(0, DIGEST_CHARS)}"`
}

/**
 * Whether an If-None-Match header names `etag` (RFC 9110 13.1.2: the weak
 * comparison, `*` for any current answer, a comma-separated list). Returns
 * false for a missing or empty header.
 */
export function matchesIfNoneMatch (header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false
  const opaque = etag.replace(/^W\//, '')
  for (const list of [header].flat()) {
    for (const raw of list.split(',')) {
      const tag = raw.trim()
      if (tag === '*' || tag.replace(/^W\//, '') === opaque) return true
    }
  }
  return false
}
