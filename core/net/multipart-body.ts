// What the bytes of a multipart body say before its parser reads them: how
// many have arrived, and whether its close delimiter (CRLF "--" boundary
// "--") was among them. @fastify/multipart ends a body without one as if it
// were whole, so a form cut after any part became the request (a field cut
// short was lost: 422 for a missing field, or a verification of what came).

/** The boundary parameter of a multipart Content-Type, quoted or not; undefined without one. */
export function multipartBoundary (contentType: string | undefined): string | undefined {
  const match = /;\s*boundary\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(contentType ?? '')
  if (match === null) return undefined
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]
}

export type MultipartBodyWatch = {
  /** Each chunk of the body, in order. */
  push (chunk: Buffer): void
  readonly bytes: number
  /** The close delimiter has arrived. */
  readonly closed: boolean
}

export function createMultipartBodyWatch (boundary: string): MultipartBodyWatch {
  const delimiter = Buffer.from(`\r\n--${boundary}--`)
  // Read as if a CRLF came first, as the parser does: a form of no parts is its close delimiter alone.
  // A part's content cannot hold CRLF "--" boundary (the parser would end the part there), so the
  // first such line followed by "--" is the close delimiter.
  let tail = Buffer.from('\r\n')
  let bytes = 0
  let closed = false
  return {
    push (chunk) {
      bytes += chunk.length
      if (closed) return
      const joined = Buffer.concat([tail, chunk])
      if (joined.includes(delimiter)) closed = true
      // A copy: a view would keep the whole chunk alive.
      tail = Buffer.from(joined.subarray(Math.max(0, joined.length - (delimiter.length - 1))))
    },
    get bytes () { return bytes },
    get closed () { return closed }
  }
}
