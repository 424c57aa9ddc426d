// JSON-RPC over WebSocket at /ws, and on the upgrade of the HTTP endpoint's
// own URLs (/, /rpc, /rpc/<key>), so a wallet's or a library's one URL serves
// both. The session logic is in core/json-rpc/socket-session.ts and the
// fan-out of the node's subscriptions in core/json-rpc/subscriptions.ts; this
// plugin is the WebSocket adapter. The routes are JSON-RPC's for plugins/auth
// (a key in the path, ?apikey= or x-api-key on the upgrade) and the upgrade
// counts as one request; each message is then charged to the same client
// through the rate limiter (each item of a batch counts).
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { WebSocket } from 'ws'
import type { Config } from '../../core/config.ts'
import type { SubscriptionHubStats } from '../../core/json-rpc/subscriptions.ts'
import { createRpcSocketSession, type RpcSocketSession } from '../../core/json-rpc/socket-session.ts'
import { JsonRpcError, errorResponse, overLimitAnswer } from '../../core/json-rpc/errors.ts'
import { RouteNotFoundError } from '../../core/errors.ts'
import { rpcIds } from '../../core/json-rpc/rpc-items.ts'
import { isPremiumKey } from '../../core/api-keys/store.ts'

declare module 'fastify' {
  interface FastifyInstance {
    rpcWebsocket: {
      /** Sessions open now. */
      connections (): number
      /** The fan-out's counts; undefined when the node has no WebSocket (an external node). */
      subscriptionStats (): SubscriptionHubStats | undefined
    }
  }
}

export type RpcWebsocketOptions = Config['rpcWebsocket'] & { timeoutMs: number }

export const RPC_WEBSOCKET_PATH = '/ws'
/** /ws, and the upgrade of every URL the HTTP endpoint serves. */
const PATHS = [RPC_WEBSOCKET_PATH, '/', '/rpc', '/rpc/:key']
/** A closing handshake a client does not answer (it is not reading) is cut short after this. */
const CLOSE_GRACE_MS = 5000
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

async function rpcWebsocket (app: FastifyInstance, options: RpcWebsocketOptions): Promise<void> {
  const log = app.log.child({ name: 'rpc-websocket' })
  // Made by plugins/rpc-proxy, whose cache hears heads through it too.
  const hub = app.jsonRpcHub
  const open = new Set<RpcSocketSession>()
  const metrics = app.metrics.enabled ? app.metrics : undefined
  const budget = app.accessBudget
  app.decorate('rpcWebsocket', { connections: () => open.size, subscriptionStats: () => hub?.stats() })

  function connect (ws: WebSocket, request: FastifyRequest): void {
    const session = createRpcSocketSession({
      transport: {
        send: (text) => ws.send(text),
        bufferedAmount: () => ws.bufferedAmount,
        close (code, reason) {
          open.delete(session)
          ws.close(code, reason)
          setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref()
        }
      },
      handler: app.jsonRpcHandler,
      hub,
      // The upgrade's key: a socket whose key stops working is closed (plugins/auth).
      premium: isPremiumKey(request.apiKey),
      async admit (text) {
        const { cost, batch } = budget.rpcCost(request, text)
        return await budget.chargeSubscription(request, cost) ? undefined : overLimitAnswer(rpcIds(text, batch))
      },
      maxSubscriptions: options.maxSubscriptionsPerConnection,
      maxQueuedBytes: options.maxQueuedBytes,
      observe: metrics?.observeJsonRpcCalls
    })
    open.add(session)
    ws.on('message', (data: Buffer | Buffer[] | ArrayBuffer) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)
      session.receive(bytes.toString('utf8')).catch((err: unknown) => log.error({ err }, 'answering a WebSocket message failed'))
    })
    ws.on('close', () => {
      session.end()
      open.delete(session)
    })
  }

  /** Past the cap, the upgrade is refused before the socket is made. */
  async function refuseOverCapacity (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (open.size < options.maxConnections) return undefined
    const error = new JsonRpcError('LIMIT_EXCEEDED', `the instance serves at most ${options.maxConnections} JSON-RPC WebSocket connections; try again later`)
    return await reply.code(503).type(JSON_CONTENT_TYPE).send(JSON.stringify(errorResponse(null, error)))
  }

  for (const url of PATHS) {
    app.route({
      method: 'GET',
      url,
      config: { access: 'json-rpc' },
      schema: { hide: true, params: { type: 'object', properties: { key: { type: 'string' } } } },
      onRequest: refuseOverCapacity,
      // A GET without the upgrade finds nothing here, as before this route was added.
      handler: async (request) => { throw new RouteNotFoundError(request.method, request.url.split('?')[0]!.slice(0, 200)) },
      wsHandler: connect
    })
  }
}

export default fp(rpcWebsocket, { name: 'rpc-websocket', fastify: '5.x', dependencies: ['geth', 'rpc-proxy', 'websocket', 'metrics', 'rate-limit'] })
