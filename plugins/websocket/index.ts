// The one WebSocket server, shared by GraphQL subscriptions and the Phoenix
// socket: @fastify/websocket routes every upgrade through the router, so a
// second registration would handle each upgrade twice. An upgrade to a route
// that serves no WebSocket is refused with a 404 instead of being accepted and
// closed at once (the plugin's default), so a client sees that nothing is there.
import fp from 'fastify-plugin'
import websocketPlugin from '@fastify/websocket'
import type { FastifyInstance } from 'fastify'
import { onSocketError } from './protocol-errors.ts'
import { closeSocketsOnRevocation } from './key-revocation.ts'

/** Largest message a client may send (mercurius's own limit when it registers the plugin itself). */
export const MAX_WEBSOCKET_MESSAGE_BYTES = 1024 * 1024

async function websocket (app: FastifyInstance): Promise<void> {
  const servedPaths = new Set<string>()
  app.addHook('onRoute', (route) => {
    if (route.websocket === true || route.wsHandler !== undefined) servedPaths.add(route.url)
  })
  await app.register(websocketPlugin, { options: { maxPayload: MAX_WEBSOCKET_MESSAGE_BYTES }, errorHandler: onSocketError })
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.upgrade?.toLowerCase() !== 'websocket' || servedPaths.has(request.routeOptions.url ?? '')) return
    await reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `No WebSocket is served at ${request.url.split('?')[0]!.slice(0, 200)}` })
  })
  // An upgrade refused by a hook that ran before @fastify/websocket's own (plugins/auth's 401 for a bad
  // key) leaves the socket open once its answer is sent: Node's HTTP server no longer tracks an upgrade's
  // socket, so it would outlive the reply, and app.close() would wait for it.
  app.addHook('onResponse', async (request) => {
    if (request.headers.upgrade?.toLowerCase() === 'websocket') request.raw.socket.destroy()
  })
  closeSocketsOnRevocation(app)
}

export default fp(websocket, { name: 'websocket', fastify: '5.x', dependencies: ['auth'] })
