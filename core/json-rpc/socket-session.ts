// One client's JSON-RPC WebSocket, framework-free: the rpc-websocket plugin
// hands it a socket's send, close and buffered byte count. Every message is
// answered by the HTTP endpoint's handler (same allow-list, errors, limits and
// batches); eth_subscribe and eth_unsubscribe are this connection's own, fed
// by the hub's fan-out of the node's subscriptions.
//
// A client mistake never ends the socket (malformed JSON is -32700, a refused
// call its error). Two caps keep one client from costing without end:
// subscriptions held (one past it is refused with -32005) and bytes waiting to
// be written to it: a client that does not read is disconnected with 1008
// rather than have the gateway's memory grow.
import { randomBytes } from 'node:crypto'
import { RpcResponseError } from '../rpc/client.ts'
import { JsonRpcError } from './errors.ts'
import type { JsonRpcHandler, SocketCalls } from './handler.ts'
import type { SubscriptionHub } from './subscriptions.ts'
import { subscriptionRequest } from './subscription-request.ts'

/** The close code for a client too far behind: a policy it broke. */
export const CLOSE_TOO_SLOW = 1008

export type RpcSocketTransport = {
  send (text: string): void
  /** Bytes handed to send that are not yet written out to the client. */
  bufferedAmount (): number
  close (code: number, reason: string): void
}

export type RpcSocketSessionOptions = {
  transport: RpcSocketTransport
  handler: JsonRpcHandler
  /** Undefined when the node has no WebSocket (an external node): eth_subscribe is then refused. */
  hub: SubscriptionHub | undefined
  /** The connection was opened with a premium API key: its calls may be premium methods. */
  premium?: boolean
  /** Charges a message to the client: undefined to answer it, or the text to answer instead (over its rate limit). */
  admit (text: string): Promise<string | undefined>
  maxSubscriptions: number
  maxQueuedBytes: number
  /** With metrics: each call's method and the seconds its message took. */
  observe?: ((methods: string[], outcomes: string[], seconds: number) => void) | undefined
}

export type RpcSocketSession = {
  receive (text: string): Promise<void>
  /** Ends every subscription; the transport is gone or going. */
  end (): void
  subscriptions (): number
  isEnded (): boolean
}

type Subscription = {
  stop: () => void
  /** False until the answer naming its id has been sent: events heard before wait, so a client never hears of an id it does not know yet. */
  active: boolean
  backlog: string[]
}

export function createRpcSocketSession (o: RpcSocketSessionOptions): RpcSocketSession {
  const subscriptions = new Map<string, Subscription>()
  let starting = 0
  let backlogBytes = 0
  let ended = false

  function send (text: string): void {
    if (ended) return
    if (o.transport.bufferedAmount() + backlogBytes > o.maxQueuedBytes) {
      end()
      o.transport.close(CLOSE_TOO_SLOW, `reading too slowly: more than ${o.maxQueuedBytes} bytes were waiting to be sent`)
      return
    }
    o.transport.send(text)
  }

  async function subscribe (params: unknown[], created: Subscription[]): Promise<string> {
    if (o.hub === undefined) throw new JsonRpcError('METHOD_NOT_FOUND', 'subscriptions need the node\'s WebSocket: set GETH_WS_URL beside GETH_RPC_URL')
    const request = subscriptionRequest(params)
    if (subscriptions.size + starting >= o.maxSubscriptions) {
      throw new JsonRpcError('LIMIT_EXCEEDED', `a connection may hold at most ${o.maxSubscriptions} subscriptions; unsubscribe some first`)
    }
    const id = '0x' + randomBytes(16).toString('hex')
    const subscription: Subscription = { stop: () => {}, active: false, backlog: [] }
    const listener = (resultText: string): void => {
      const text = notification(id, resultText)
      if (subscription.active) return send(text)
      subscription.backlog.push(text)
      backlogBytes += text.length
    }
    starting++
    try {
      subscription.stop = await o.hub.subscribe(request, listener)
    } catch (err) {
      if (err instanceof RpcResponseError) throw new JsonRpcError({ code: err.code, message: err.message })
      throw err
    } finally {
      starting--
    }
    if (ended) {
      subscription.stop()
      throw new JsonRpcError('INTERNAL_ERROR', 'the connection closed')
    }
    subscriptions.set(id, subscription)
    created.push(subscription)
    return id
  }

  function unsubscribe (id: string): boolean {
    const subscription = subscriptions.get(id.toLowerCase())
    if (subscription === undefined) return false
    subscriptions.delete(id.toLowerCase())
    subscription.stop()
    drop(subscription)
    return true
  }

  function activate (subscription: Subscription): void {
    subscription.active = true
    const backlog = drop(subscription)
    for (const text of backlog) send(text)
  }

  function drop (subscription: Subscription): string[] {
    const backlog = subscription.backlog
    subscription.backlog = []
    for (const text of backlog) backlogBytes -= text.length
    return backlog
  }

  function end (): void {
    if (ended) return
    ended = true
    for (const subscription of subscriptions.values()) subscription.stop()
    subscriptions.clear()
    backlogBytes = 0
  }

  return {
    async receive (text) {
      if (ended) return
      const startedAt = performance.now()
      const refusal = await o.admit(text)
      if (refusal !== undefined) return send(refusal)
      const created: Subscription[] = []
      const calls: SocketCalls = async (method, params) =>
        method === 'eth_subscribe' ? await subscribe(params, created) : unsubscribe(params[0] as string)
      const { body, methods, outcomes } = await o.handler.handle(text, calls, o.premium === true)
      if (body !== undefined) send(body)
      for (const subscription of created) activate(subscription)
      if (methods !== undefined) o.observe?.(methods, outcomes!, (performance.now() - startedAt) / 1000)
    },
    end,
    subscriptions: () => subscriptions.size,
    isEnded: () => ended
  }
}

/** The standard notification, written around the result's text, which the hub serialised once for every listener. */
function notification (id: string, resultText: string): string {
  return `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":${resultText}}}`
}
