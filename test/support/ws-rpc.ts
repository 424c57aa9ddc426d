// A raw JSON-RPC WebSocket client for tests: sends text, waits for the answer
// with a given id (or the next answer of any kind), keeps notifications.
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'

type Tap = { teardown (fn: () => unknown): void }

export type WsRpcClient = {
  socket: WebSocket
  /** Sends `body` (an object, or raw text) and resolves with the next answer that is not a notification. */
  send (body: unknown): Promise<any>
  /** Sends a request with this id and resolves with the answer carrying it. */
  call (method: string, params?: unknown[], id?: number | string): Promise<any>
  /** eth_subscription notifications heard, in order. */
  notifications: Array<{ subscription: string, result: any }>
  /** Waits until `check` holds over the notifications. */
  until (check: () => boolean, timeoutMs?: number): Promise<void>
}

export function wsUrlOf (httpUrl: string, path = '/ws'): string {
  return httpUrl.replace(/^http/, 'ws') + path
}

export async function connectWsRpc (t: Tap, url: string, options: WebSocket.ClientOptions = {}): Promise<WsRpcClient> {
  const socket = new WebSocket(url, options)
  t.teardown(() => socket.terminate())
  await once(socket, 'open')
  const notifications: WsRpcClient['notifications'] = []
  const waiting: Array<(answer: any) => boolean> = []
  socket.on('message', (data) => {
    const message = JSON.parse(String(data))
    if (message.method === 'eth_subscription') {
      notifications.push(message.params)
      return
    }
    const index = waiting.findIndex((accept) => accept(message))
    if (index >= 0) waiting.splice(index, 1)
  })
  const answer = async (matches: (message: any) => boolean): Promise<any> => await new Promise((resolve) => {
    waiting.push((message) => {
      if (!matches(message)) return false
      resolve(message)
      return true
    })
  })
  let nextId = 1
  return {
    socket,
    notifications,
    async send (body) {
      const answered = answer(() => true)
      socket.send(typeof body === 'string' ? body : JSON.stringify(body))
      return await answered
    },
    async call (method, params = [], id = nextId++) {
      const answered = answer((m) => !Array.isArray(m) && m.id === id)
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
      return await answered
    },
    async until (check, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms; heard ${JSON.stringify(notifications).slice(0, 500)}`)
        await sleep(20)
      }
    }
  }
}
