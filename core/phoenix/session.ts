// One client's Phoenix socket: joins and leaves of topics, heartbeats, and
// the pushes the hub broadcasts, over any transport. Framework-free: the
// socket plugin hands it a WebSocket's send and close.
//
// A client mistake never ends the socket: a malformed frame is answered with
// phx_error on the `phoenix` topic, an unknown topic or event with an error
// reply. Two caps keep one client from costing without end: channels joined
// (a join past it is refused) and frames queued for a client that does not
// read (past it the socket is closed, as a slow GraphQL subscriber's
// subscription is ended; the client reconnects and rejoins).
import { encodeFrame, parseFrame, type PhoenixMessage } from './frames.ts'
import type { ChannelHub, Subscriber } from './hub.ts'

/** The close code for a client too far behind: a policy the client broke. */
export const CLOSE_TOO_SLOW = 1008

export type SessionTransport = {
  /** Sends a text frame; `done` when it has been written out (or failed). */
  send (text: string, done: (err?: Error) => void): void
  close (code: number, reason: string): void
}

export type SessionOptions = {
  transport: SessionTransport
  hub: ChannelHub
  /** Why a topic cannot be joined (Phoenix's join error reason), or undefined when it can. */
  refuseJoin: (topic: string) => string | undefined
  maxChannels: number
  maxQueued: number
  now?: () => number
}

export type PhoenixSession = Subscriber & {
  receive (text: string): void
  /** Leaves every topic; the transport is gone or going. */
  end (): void
  channels (): number
  /** When the client last sent anything (heartbeats included), in ms. */
  lastSeenMs (): number
}

type Reply = { status: 'ok' | 'error', response: Record<string, unknown> }

export function createPhoenixSession ({ transport, hub, refuseJoin, maxChannels, maxQueued, now = Date.now }: SessionOptions): PhoenixSession {
  const joined = new Map<string, string | null>()
  let queued = 0
  let ended = false
  let lastSeen = now()

  const sendText = (text: string): void => {
    if (ended) return
    if (queued >= maxQueued) {
      session.end()
      transport.close(CLOSE_TOO_SLOW, 'too many messages queued')
      return
    }
    queued++
    transport.send(text, () => { queued-- })
  }
  const send = (message: PhoenixMessage): void => sendText(encodeFrame(message))
  const reply = (message: PhoenixMessage, { status, response }: Reply): void =>
    send({ joinRef: message.joinRef, ref: message.ref, topic: message.topic, event: 'phx_reply', payload: { status, response } })

  function join (message: PhoenixMessage): void {
    const { topic } = message
    if (!joined.has(topic)) {
      if (joined.size >= maxChannels) return reply(message, { status: 'error', response: { reason: 'too many channels' } })
      const reason = refuseJoin(topic)
      if (reason !== undefined) return reply(message, { status: 'error', response: { reason } })
      hub.join(topic, session)
    }
    // A second join of a topic replaces the first (the client rejoining after an error).
    joined.set(topic, message.joinRef)
    reply(message, { status: 'ok', response: {} })
  }

  function leave (message: PhoenixMessage): void {
    const joinRef = joined.get(message.topic)
    reply(message, { status: 'ok', response: {} })
    if (joinRef === undefined) return
    joined.delete(message.topic)
    hub.leave(message.topic, session)
    send({ joinRef, ref: joinRef, topic: message.topic, event: 'phx_close', payload: {} })
  }

  const session: PhoenixSession = {
    pushText: sendText,
    receive (text) {
      lastSeen = now()
      const message = parseFrame(text)
      if (message === undefined) {
        send({ joinRef: null, ref: null, topic: 'phoenix', event: 'phx_error', payload: { reason: 'malformed message: expected [join_ref, ref, topic, event, payload]' } })
        return
      }
      if (message.topic === 'phoenix' && message.event === 'heartbeat') return reply(message, { status: 'ok', response: {} })
      if (message.event === 'phx_join') return join(message)
      if (message.event === 'phx_leave') return leave(message)
      // Blockscout's channels take no messages from clients.
      reply(message, { status: 'error', response: { reason: joined.has(message.topic) ? 'unknown event' : 'unmatched topic' } })
    },
    end () {
      if (ended) return
      ended = true
      for (const topic of joined.keys()) hub.leave(topic, session)
      joined.clear()
    },
    channels: () => joined.size,
    lastSeenMs: () => lastSeen
  }
  return session
}
