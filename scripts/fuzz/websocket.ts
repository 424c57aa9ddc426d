// One WebSocket session with the gateway: open (with a subprotocol or none),
// send the generated frames one after another, then a sentinel frame whose
// answer marks the end of the session's answers (the gateway answers a
// connection's frames in order), and collect what came back: the messages,
// and the close code if the gateway closed the socket. An upgrade the gateway
// refuses ends the session with its HTTP status and body.
import fc from 'fast-check'
import WebSocket from 'ws'
import type { FuzzTarget } from './run.ts'

/** A session still open this long after its sentinel was sent gets no answer: a hang. */
const SESSION_TIMEOUT_MS = 30_000
/** Answers of subscriptions started in the session may trail the sentinel's by a moment. */
const TRAILING_MS = 20
const CLOSE_WAIT_MS = 2000
const PRINTED_CHARS = 300
const PRINTED_FRAMES = 6

/** A frame: text (a string), binary (a Buffer), or bytes sent as a text frame (`{ text: Buffer }`: maybe not UTF-8). */
export type WsFrame = string | Buffer | { text: Buffer }

export type WsSession = {
  path: string
  protocol?: string
  frames: WsFrame[]
  /** The frame the gateway answers last, and how its answer is known. */
  sentinel: string
  isSentinelAnswer (message: string): boolean
}

export type WsOutcome = {
  /** The upgrade's HTTP status when the gateway refused it (the body in `messages`). */
  refusedStatus?: number
  messages: string[]
  /** The code of a close the gateway started (undefined: the session ended it, or the socket is open). */
  serverCloseCode?: number
  serverCloseReason?: string
}

/** Frames sent in the session: what the suite counts as requests. */
export const framesOf = (session: WsSession): number => session.frames.length + 1

export async function runWsSession (origin: string, session: WsSession): Promise<WsOutcome> {
  const socket = new WebSocket(origin.replace(/^http/, 'ws') + session.path, session.protocol === undefined ? [] : [session.protocol], { handshakeTimeout: SESSION_TIMEOUT_MS })
  const outcome: WsOutcome = { messages: [] }
  let closingByUs = false
  return await new Promise<WsOutcome>((resolve, reject) => {
    let sentinelAnswered = false
    let trailing: NodeJS.Timeout | undefined
    const timer = setTimeout(() => { socket.terminate(); reject(new Error(`no answer to the sentinel within ${SESSION_TIMEOUT_MS} ms`)) }, SESSION_TIMEOUT_MS)
    const finish = (): void => {
      clearTimeout(timer)
      clearTimeout(trailing)
      resolve(outcome)
    }
    socket.on('unexpected-response', (_request, response) => {
      outcome.refusedStatus = response.statusCode
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => { outcome.messages.push(Buffer.concat(chunks).toString()); finish() })
    })
    socket.on('error', () => {})
    socket.on('message', (data) => {
      const text = String(data)
      outcome.messages.push(text)
      if (!sentinelAnswered && session.isSentinelAnswer(text)) {
        sentinelAnswered = true
        trailing = setTimeout(() => {
          closingByUs = true
          socket.close(1000)
          setTimeout(() => socket.terminate(), CLOSE_WAIT_MS).unref()
        }, TRAILING_MS)
      }
    })
    socket.on('close', (code, reason) => {
      if (!closingByUs) {
        outcome.serverCloseCode = code
        outcome.serverCloseReason = reason.toString()
      }
      finish()
    })
    socket.on('open', () => {
      sendAll(socket, [...session.frames, session.sentinel]).catch(() => {})
    })
  })
}

/** One frame at a time; stops when the socket is no longer open (the gateway closed it). */
async function sendAll (socket: WebSocket, frames: WsFrame[]): Promise<void> {
  for (const frame of frames) {
    if (socket.readyState !== WebSocket.OPEN) return
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error): void => { if (err === undefined || err === null) resolve(); else reject(err) }
      if (typeof frame === 'string') socket.send(frame, done)
      else if (Buffer.isBuffer(frame)) socket.send(frame, { binary: true }, done)
      else socket.send(frame.text, { binary: false }, done)
    })
  }
}

/** Gives the session a printable form of bounded length (fast-check prints counterexamples with it). */
export function describeSession (session: WsSession): WsSession {
  const frame = (f: WsFrame): string => {
    const text = typeof f === 'string' ? f : Buffer.isBuffer(f) ? `binary(${f.length})` : `text bytes(${f.text.length})`
    return text.length <= PRINTED_CHARS ? text : `${text.slice(0, PRINTED_CHARS)}... (${text.length} chars)`
  }
  const frames = session.frames.slice(0, PRINTED_FRAMES).map(frame).join(' | ')
  const text = `WS ${session.path} [${session.protocol ?? 'no subprotocol'}] ${session.frames.length} frames: ${frames}${session.frames.length > PRINTED_FRAMES ? ' | ...' : ''}`
  return Object.assign(session, { [fc.toStringMethod]: () => text })
}

/** The status class of a session for the summary table: `ws` when upgraded, else the refusal's HTTP class. */
export function sessionClass (outcome: WsOutcome): string {
  return outcome.refusedStatus === undefined ? 'ws' : `${Math.floor(outcome.refusedStatus / 100)}xx`
}

/** A frame just over the 1 MiB every WebSocket of the gateway accepts: closed with 1009. */
export const OVERSIZED_FRAME = `"${'x'.repeat(1024 * 1024 + 16)}"`

/** A fuzz target of WebSocket sessions: each session one run, its frames the requests counted. */
export function createSessionTarget (name: string, origin: string, sessions: fc.Arbitrary<WsSession>, check: (outcome: WsOutcome) => string | undefined): FuzzTarget<WsSession, WsOutcome> {
  return { name, requests: sessions, exchange: async (session) => await runWsSession(origin, session), count: framesOf, classify: sessionClass, check }
}

/** Whether a message is the answer whose `id` is `id` (the sentinel's). */
export function isAnswerWithId (id: string): (message: string) => boolean {
  return (message) => {
    if (!message.includes(id)) return false
    try {
      return (JSON.parse(message) as { id?: unknown }).id === id
    } catch {
      return false
    }
  }
}
