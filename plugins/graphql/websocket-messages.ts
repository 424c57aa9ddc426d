// mercurius reads a subscription message as `const { id, type } = JSON.parse(text)`:
// the JSON text `null` throws there, is logged as a server error and drops the
// connection without a word. Such a message is handed on as `{}` instead, which
// mercurius answers as any message without a known type: an error message on a
// connection that stays open (as it does for 42, [] or "text").
import type { WebSocket, WebSocketServer } from 'ws'

const EMPTY_OBJECT = Buffer.from('{}')

/** Whether a frame (text or binary, whole or in fragments) holds the JSON text null. */
function isJsonNull (data: unknown): boolean {
  const bytes = Array.isArray(data) ? Buffer.concat(data as Buffer[]) : data instanceof ArrayBuffer ? Buffer.from(data) : data
  // Anything longer is some other value or not JSON: mercurius copes with those.
  return Buffer.isBuffer(bytes) && bytes.length <= 16 && bytes.toString('utf8').trim() === 'null'
}

export function guardSubscriptionMessages (server: WebSocketServer): void {
  server.on('connection', (socket: WebSocket) => {
    // The connection event comes before mercurius listens: every message passes here first.
    const emit = socket.emit
    socket.emit = function (this: WebSocket, event: string | symbol, ...args: unknown[]): boolean {
      if (event === 'message' && isJsonNull(args[0])) return emit.call(this, event, EMPTY_OBJECT, args[1])
      return emit.call(this, event, ...args)
    } as WebSocket['emit']
  })
}
