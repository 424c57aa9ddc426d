// A JSON-RPC connection to the node's own WebSocket (Geth's --ws on loopback),
// for what HTTP cannot carry: subscriptions, whose notifications Geth pushes.
// One connection, no reconnection of its own: whoever holds subscriptions on
// it (core/json-rpc/subscriptions.ts) knows what to set up again, and opens a
// new one when this one closes.
import { WebSocket } from 'undici'
import { RpcResponseError, RpcUnavailableError } from './client.ts'

export type RpcSocketOptions = {
  url: string
  /** How long opening the connection, and each call, may take. */
  timeoutMs: number
  /** An `eth_subscription` notification: the node's subscription id and its result. */
  onNotification (subscription: string, result: unknown): void
  /** Called once when the connection ends (the node stopped or restarted, or close() was called). */
  onClose (): void
}

export type RpcSocket = {
  /** Rejects with RpcUnavailableError when the connection ends first or the call times out, RpcResponseError for the node's error. */
  call<T = unknown> (method: string, params: unknown[]): Promise<T>
  close (): void
}

type Pending = { resolve (result: unknown): void, reject (err: Error): void, timer: NodeJS.Timeout }
type Incoming = { id?: unknown, result?: unknown, error?: { code: number, message: string, data?: unknown }, method?: unknown, params?: { subscription?: unknown, result?: unknown } }

/** Opens the connection; rejects with RpcUnavailableError when the node cannot be reached. */
export async function openRpcSocket (o: RpcSocketOptions): Promise<RpcSocket> {
  const ws = new WebSocket(o.url)
  const pending = new Map<number, Pending>()
  let nextId = 1
  let closed = false

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.close()
      reject(new RpcUnavailableError(`the node's WebSocket ${o.url} did not open within ${o.timeoutMs} ms`))
    }, o.timeoutMs)
    ws.addEventListener('open', () => { clearTimeout(timer); resolve() }, { once: true })
    ws.addEventListener('error', () => { clearTimeout(timer); reject(new RpcUnavailableError(`the node's WebSocket ${o.url} cannot be reached`)) }, { once: true })
  })

  ws.addEventListener('message', (event) => {
    if (typeof event.data !== 'string') return
    let message: Incoming
    try {
      message = JSON.parse(event.data) as Incoming
    } catch {
      return
    }
    if (message.method === 'eth_subscription' && typeof message.params?.subscription === 'string') {
      o.onNotification(message.params.subscription, message.params.result)
      return
    }
    const call = typeof message.id === 'number' ? pending.get(message.id) : undefined
    if (call === undefined) return
    pending.delete(message.id as number)
    clearTimeout(call.timer)
    if (message.error !== undefined) call.reject(new RpcResponseError(message.error.code, message.error.message, message.error.data))
    else call.resolve(message.result)
  })
  ws.addEventListener('close', () => {
    closed = true
    for (const call of pending.values()) {
      clearTimeout(call.timer)
      call.reject(new RpcUnavailableError('the node\'s WebSocket closed before it answered'))
    }
    pending.clear()
    o.onClose()
  }, { once: true })
  // An error is followed by close, which settles everything.
  ws.addEventListener('error', () => {})

  return {
    async call<T> (method: string, params: unknown[]) {
      if (closed || ws.readyState !== WebSocket.OPEN) throw new RpcUnavailableError('the node\'s WebSocket is closed')
      const id = nextId++
      return await new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id)
          reject(new RpcUnavailableError(`the node did not answer ${method} within ${o.timeoutMs} ms`))
        }, o.timeoutMs)
        pending.set(id, { resolve: resolve as (result: unknown) => void, reject, timer })
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
      })
    },
    close () {
      if (!closed) ws.close()
    }
  }
}
