// The verification routes' multipart forms (Blockscout's front end sends its
// files so), read within VERIFY_MAX_BODY_BYTES: the body is counted as it
// arrives, beside @fastify/multipart's own reading, and over the cap the
// request answers 413 at once with the rest unread. 50 files of 10 MB in one
// form once took the process from 402 MB to 3.4 GB.
//
// Every answer given before a form was read to its end (413 over the cap, or
// for too many parts or files; 400 for a body the parser gave up on) closes
// the connection: the rest of the form would otherwise wait there, unread,
// and hold the connection's next request until the request timeout (408).
// A body that ends without its close delimiter answers 400, not the request
// its first parts would make.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import multipart from '@fastify/multipart'
import { VerifyBodyTooLargeError, VerifyInputInvalidError } from '../../core/errors.ts'
import { createMultipartBodyWatch, multipartBoundary, type MultipartBodyWatch } from '../../core/net/multipart-body.ts'

/** Most files in one request: a project's sources, one file each. */
const MAX_FILES = 200

export type UploadedFile = { filename: string, content: string }

type Reading = { watch: MultipartBodyWatch, overCap: Promise<never> }

/** Adds the hooks that read a multipart request's form into request.body, to the routes of `app`'s scope. */
export async function verificationForms (app: FastifyInstance, { maxBodyBytes }: { maxBodyBytes: number }): Promise<void> {
  // The parts are read by readForm below, not by the plugin's attachFieldsToBody (which reads on past any cap).
  await app.register(multipart, { limits: { fileSize: maxBodyBytes, fieldSize: maxBodyBytes, files: MAX_FILES } })
  const readings = new WeakMap<FastifyRequest, Reading>()
  const tooLarge = () => new VerifyBodyTooLargeError(String(maxBodyBytes))

  app.addHook('preParsing', async (request, reply, payload) => {
    if (!/^multipart\/form-data/i.test(request.headers['content-type'] ?? '')) return payload
    if (Number(request.headers['content-length']) > maxBodyBytes) refuse(reply, tooLarge())
    // Without a boundary the parser refuses the request before reading any of it.
    const boundary = multipartBoundary(request.headers['content-type'])
    if (boundary !== undefined) readings.set(request, watchBody(request, createMultipartBodyWatch(boundary), maxBodyBytes, tooLarge))
    return payload
  })

  app.addHook('preValidation', async (request, reply) => {
    if (!request.isMultipart()) return
    const reading = readings.get(request)
    const form = readForm(request, tooLarge)
    // When the cap wins the race the form is never read on: it ends when the closed connection ends the parser.
    form.catch(() => {})
    try {
      request.body = await (reading === undefined ? form : Promise.race([form, reading.overCap]))
    } catch (error) {
      const { statusCode, message } = error as { statusCode?: number, message: string }
      // The parser's own errors carry no status: a body cut short is the client's, not a 500.
      if (statusCode !== undefined) refuse(reply, error)
      refuse(reply, isUnclosed(request, reading) ? unclosed() : new VerifyInputInvalidError(`the multipart body could not be read (${message})`))
    }
    // The parser also ends a form quietly when the connection closes midway: only a closed form is a request.
    if (reading !== undefined && !reading.watch.closed) refuse(reply, isUnclosed(request, reading) ? unclosed() : new VerifyInputInvalidError('the multipart body could not be read (cut short)'))
  })
}

/** The whole body has arrived and held no close delimiter. */
const isUnclosed = (request: FastifyRequest, reading: Reading | undefined): boolean => reading !== undefined && request.raw.complete && !reading.watch.closed
const unclosed = () => new VerifyInputInvalidError('the multipart body could not be read (it ends without its closing boundary)')

/** Answers `error` and closes the connection after it: what is left of the body is never read. */
function refuse (reply: FastifyReply, error: unknown): never {
  reply.header('connection', 'close')
  throw error
}

/**
 * Counts the request's bytes as they arrive; over `maxBytes` it stops reading
 * (unpiped from the parser and paused) and `overCap` rejects. The request is
 * paused first, so that this listener does not start the flow: the parser's
 * pipe does, and both then see every chunk.
 */
function watchBody (request: FastifyRequest, watch: MultipartBodyWatch, maxBytes: number, tooLarge: () => Error): Reading {
  const raw = request.raw
  let stop: (error: Error) => void = () => {}
  const overCap = new Promise<never>((_resolve, reject) => { stop = reject })
  // Raced only once the form is read; over the cap before that, nothing awaits it yet.
  overCap.catch(() => {})
  const onData = (chunk: Buffer): void => {
    watch.push(chunk)
    if (watch.bytes <= maxBytes) return
    raw.off('data', onData)
    raw.unpipe()
    raw.pause()
    stop(tooLarge())
  }
  raw.pause()
  raw.on('data', onData)
  return { watch, overCap }
}

/** The form's fields as @fastify/multipart's keyValues gave them: text, files as { filename, content }, a name sent twice as a list. */
async function readForm (request: FastifyRequest, tooLarge: () => Error): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {}
  for await (const part of request.parts()) {
    let value: unknown
    if (part.type === 'file') {
      const chunks: Buffer[] = []
      for await (const chunk of part.file) chunks.push(chunk as Buffer)
      if (part.file.truncated) throw tooLarge()
      value = { filename: part.filename, content: Buffer.concat(chunks).toString('utf8') } satisfies UploadedFile
    } else {
      if (part.valueTruncated) throw tooLarge()
      value = part.value
    }
    const held = body[part.fieldname]
    if (held === undefined) body[part.fieldname] = value
    else if (Array.isArray(held)) held.push(value)
    else body[part.fieldname] = [held, value]
  }
  return body
}
