// How many subscriptions run, per connection and on the instance. Each one is
// executed on every event it hears, so the cost limit of one operation would
// otherwise be multiplied by the number of subscriptions as well as by the
// event rate. The count is kept at the protocol's level, from the messages
// themselves, since mercurius exposes no count and tells no hook when a
// subscription ends: a subscription is live from its `subscribe` (`start` in
// the legacy graphql-ws protocol) until the client stops it, the server sends
// `complete` or `error` for its id, or the connection closes. A `subscribe`
// over a cap is answered with an `error` message for its id and never reaches
// mercurius; the connection goes on.
//
// Two more things only the messages tell. A subscription's variables, which
// mercurius does not hand its preSubscriptionExecution hook (the cost of
// `first: $n` needs them): kept here until the hook takes them. And the end of
// a subscription refused after mercurius registered it (invalid, too costly):
// mercurius keeps its state until the client stops that id or disconnects, so
// each refusal would hold memory on an open connection; the stop is sent to
// mercurius here when the `error` goes out.
import type { IncomingMessage } from 'node:http'
import type { WebSocket, WebSocketServer } from 'ws'
import type { Logger } from '../../core/logger.ts'
import { ERROR_CODES } from './errors.ts'

export type SubscriptionLimitsOptions = { maxPerConnection: number, maxTotal: number, log: Logger }

export type SubscriptionLimits = {
  /** The variables the subscription `id` of this connection was sent with, once: the hook's copy. */
  takeVariables (request: IncomingMessage, id: unknown): Record<string, unknown> | undefined
}

type Connection = { live: Map<string, { variables?: Record<string, unknown> }> }
type Message = { type?: unknown, id?: unknown, payload?: { variables?: unknown } }

/** graphql-transport-ws's `complete` both ways; the legacy protocol's client says `stop`. */
const PROTOCOL_TYPES = {
  'graphql-transport-ws': { start: 'subscribe', stop: 'complete' },
  'graphql-ws': { start: 'start', stop: 'stop' }
} as const

/** graphql-transport-ws: a second subscribe with the id of a live one ends the connection with this code. */
const DUPLICATE_ID_CLOSE_CODE = 4409

function parse (data: unknown): Message | undefined {
  const bytes = Array.isArray(data) ? Buffer.concat(data as Buffer[]) : data instanceof ArrayBuffer ? Buffer.from(data) : data
  try {
    const message: unknown = JSON.parse(Buffer.isBuffer(bytes) ? bytes.toString('utf8') : String(bytes))
    return typeof message === 'object' && message !== null ? message : undefined
  } catch {
    return undefined // mercurius answers it
  }
}

/** mercurius writes each message as JSON.stringify({ type, id, payload }): the ends are told by their first bytes, without parsing every event. */
function endedId (text: string): { id: unknown, refused: boolean } | undefined {
  const refused = text.startsWith('{"type":"error"')
  if (!refused && !text.startsWith('{"type":"complete"')) return undefined
  return { id: (JSON.parse(text) as Message).id, refused }
}

export function limitSubscriptions (server: WebSocketServer, { maxPerConnection, maxTotal, log }: SubscriptionLimitsOptions): SubscriptionLimits {
  const connections = new WeakMap<IncomingMessage, Connection>()
  let total = 0
  let full = false

  const refusal = (socket: WebSocket, id: unknown, message: string): void => {
    socket.send(JSON.stringify({ type: 'error', id, payload: [{ message, extensions: { code: ERROR_CODES.TOO_MANY_SUBSCRIPTIONS } }] }))
  }

  server.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const types = PROTOCOL_TYPES[socket.protocol as keyof typeof PROTOCOL_TYPES]
    if (types === undefined) return // mercurius closes it
    const connection: Connection = { live: new Map() }
    connections.set(request, connection)
    const end = (id: string): void => {
      if (connection.live.delete(id)) total--
      if (full && total < maxTotal) full = false
    }
    /** Whether mercurius should see the message; refuses a subscription over a cap. */
    const admit = (message: Message): boolean => {
      if (message.type === types.stop && typeof message.id === 'string') end(message.id)
      if (message.type !== types.start) return true
      const { id } = message
      if (typeof id !== 'string' || id === '') {
        // mercurius would run it under a missing id, where it can never be stopped.
        socket.send(JSON.stringify({ type: 'error', id, payload: [{ message: 'A subscription needs an id: a non-empty string', extensions: { code: ERROR_CODES.BAD_REQUEST } }] }))
        return false
      }
      if (connection.live.has(id)) {
        // mercurius would run both and could stop only the second.
        socket.close(DUPLICATE_ID_CLOSE_CODE, `Subscriber for ${id} already exists`)
        return false
      }
      if (connection.live.size >= maxPerConnection) {
        refusal(socket, id, `Too many subscriptions on this connection: at most ${maxPerConnection}`)
        return false
      }
      if (total >= maxTotal) {
        if (!full) log.warn({ subscriptions: total }, 'GraphQL subscriptions are at their limit (GRAPHQL_MAX_SUBSCRIPTIONS): new ones are refused')
        full = true
        refusal(socket, id, `The server has too many subscriptions (at most ${maxTotal}); try again later`)
        return false
      }
      const variables = message.payload?.variables
      connection.live.set(id, { variables: typeof variables === 'object' && variables !== null ? variables as Record<string, unknown> : undefined })
      total++
      return true
    }

    // Listeners of this event come before mercurius's: every message passes here first.
    const emit = socket.emit
    socket.emit = function (this: WebSocket, event: string | symbol, ...args: unknown[]): boolean {
      if (event === 'message') {
        const message = parse(args[0])
        if (message !== undefined && !admit(message)) return true
      }
      return emit.call(this, event, ...args)
    } as WebSocket['emit']
    const send = socket.send as (this: WebSocket, ...args: unknown[]) => void
    socket.send = function (this: WebSocket, data: unknown, ...rest: unknown[]): void {
      const ended = typeof data === 'string' ? endedId(data) : undefined
      send.call(this, data, ...rest)
      if (ended === undefined || typeof ended.id !== 'string' || !connection.live.has(ended.id)) return
      end(ended.id)
      if (ended.refused && socket.readyState === socket.OPEN) {
        emit.call(this, 'message', Buffer.from(JSON.stringify({ type: types.stop, id: ended.id })), false)
      }
    } as WebSocket['send']
    socket.once('close', () => { for (const id of [...connection.live.keys()]) end(id) })
  })

  return {
    takeVariables (request, id) {
      const subscription = typeof id === 'string' ? connections.get(request)?.live.get(id) : undefined
      const variables = subscription?.variables
      if (subscription !== undefined) subscription.variables = undefined
      return variables
    }
  }
}
