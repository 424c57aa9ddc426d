// Open WebSocket connections by interface, for gateway_websocket_connections.
// Every WebSocket route (JSON-RPC's, GraphQL's subscriptions, the Phoenix
// socket) is added after the metrics plugin, so its onRoute hook wraps each
// one's connection handler: counted when a socket opens and when it closes,
// nothing on its messages.
import type { RouteOptions } from 'fastify'
import type { WebSocket } from 'ws'
import { GRAPHQL_ROUTE } from './graphql-operation.ts'

/** Open sockets by interface; entries stay at 0 once their sockets close. */
export type OpenWebsockets = Map<string, number>

const PHOENIX_ROUTE = '/socket/v2/websocket'
/** plugins/rpc-websocket: /ws and the HTTP endpoint's own URLs. */
const JSON_RPC_ROUTES = new Set(['/ws', '/', '/rpc', '/rpc/:key'])

function interfaceOf (url: string): string {
  if (JSON_RPC_ROUTES.has(url)) return 'json-rpc'
  if (GRAPHQL_ROUTE.test(url)) return 'graphql'
  return url === PHOENIX_ROUTE ? 'phoenix' : 'other'
}

type SocketHandler = (this: unknown, socket: WebSocket, ...rest: unknown[]) => unknown

export function countWebsockets (route: RouteOptions, open: OpenWebsockets): void {
  const methods = [route.method].flat()
  if (!methods.includes('GET')) return
  const iface = interfaceOf(route.url)
  const counted = (handler: SocketHandler): SocketHandler => function (this: unknown, socket, ...rest) {
    open.set(iface, (open.get(iface) ?? 0) + 1)
    socket.once('close', () => open.set(iface, open.get(iface)! - 1))
    return handler.call(this, socket, ...rest)
  }
  const options = route as Omit<RouteOptions, 'wsHandler'> & { wsHandler?: SocketHandler, websocket?: boolean }
  // @fastify/websocket: a wsHandler beside the HTTP handler, or `websocket: true` and the handler takes the socket.
  if (options.wsHandler !== undefined) options.wsHandler = counted(options.wsHandler)
  else if (options.websocket === true) options.handler = counted(options.handler as unknown as SocketHandler) as unknown as RouteOptions['handler']
}
