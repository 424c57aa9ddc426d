// A WebSocket opened with an API key is judged by that key once, at its
// upgrade, and then stays open as long as its client likes: every message on
// it and every subscription is charged to the key. So each socket's key is
// watched (core/api-keys/lookup.ts hears every instance's key changes through
// PostgreSQL) and the socket closed, on whichever instance holds it, as soon as
// its key stops working: revoked, or a rotated key's grace over. Closed rather
// than downgraded to the public limit: each socket kind (JSON-RPC, GraphQL,
// Phoenix) has its own way of charging and no way of telling its client that
// its budget changed, and a client that reconnects without the key is public.
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import type { WebSocket } from 'ws'
import { sentKey } from '../auth/sent-key.ts'
import { redactUrl } from '../../core/api-keys/redact.ts'

/** Policy violation, as the Phoenix socket's over-limit close. */
export const KEY_REVOKED_CLOSE_CODE = 1008
export const KEY_REVOKED_CLOSE_REASON = 'API key revoked'
/** A closing handshake a client does not answer (it is not reading) is cut short after this. */
const CLOSE_GRACE_MS = 1000

const isUpgrade = (request: IncomingMessage): boolean => request.headers.upgrade?.toLowerCase() === 'websocket'

/** Registered before the WebSocket routes: its hook must apply to them. */
export function closeSocketsOnRevocation (app: FastifyInstance): void {
  const lookup = app.apiKeys.lookup
  // From the upgrade's hooks (where plugins/auth let its key in) to the socket it becomes.
  const keys = new WeakMap<IncomingMessage, { key: string, keyId: string }>()
  app.addHook('preHandler', (request, _reply, done) => {
    if (request.apiKey != null && isUpgrade(request.raw)) {
      const key = sentKey(request, request.routeOptions.config.access ?? 'rest')
      if (typeof key === 'string') keys.set(request.raw, { key, keyId: request.apiKey.id })
    }
    done()
  })
  app.websocketServer.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const opened = keys.get(request)
    if (opened === undefined) return
    keys.delete(request)
    const stop = lookup.watch(opened.key, () => {
      app.log.info({ keyId: opened.keyId, url: redactUrl(request.url ?? '') }, 'closing a WebSocket: its API key no longer works')
      socket.close(KEY_REVOKED_CLOSE_CODE, KEY_REVOKED_CLOSE_REASON)
      setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref()
    })
    socket.once('close', stop)
  })
}
