// A GraphQL client for tests: queries over HTTP (inject) and subscriptions
// over a real WebSocket speaking graphql-transport-ws (or, at the message
// level, either subscription protocol).
import type { FastifyInstance } from 'fastify'
import { once } from 'node:events'
import { WebSocket } from 'undici'
import WsSocket from 'ws'

export type GraphqlAnswer = { status: number, body: { data?: any, errors?: Array<{ message: string, extensions?: { code?: string } }> } }

export async function postGraphql (app: FastifyInstance, query: string, variables?: Record<string, unknown>, path = '/api/v2/graphql'): Promise<GraphqlAnswer> {
  const response = await app.inject({ method: 'POST', url: path, payload: { query, variables } })
  return { status: response.statusCode, body: response.json() }
}

export type Subscription = { next (timeoutMs?: number): Promise<any>, close (): void }

/** Opens a socket, waits for the server's ack, subscribes, and hands out each `next` payload in order. */
export async function subscribeGraphql (wsUrl: string, query: string): Promise<Subscription> {
  const socket = new WebSocket(wsUrl, 'graphql-transport-ws')
  const received: any[] = []
  const waiting: Array<(message: any) => void> = []
  let acknowledge: () => void
  const acknowledged = new Promise<void>((resolve) => { acknowledge = resolve })
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data))
    if (message.type === 'connection_ack') acknowledge()
    else if (message.type === 'next' || message.type === 'error') {
      const waiter = waiting.shift()
      if (waiter !== undefined) waiter(message)
      else received.push(message)
    }
  })
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve)
    socket.addEventListener('error', reject)
  })
  socket.send(JSON.stringify({ type: 'connection_init' }))
  await acknowledged
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }))
  return {
    async next (timeoutMs = 5000) {
      if (received.length > 0) return received.shift()
      return await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no subscription message within ${timeoutMs} ms`)), timeoutMs)
        waiting.push((message) => { clearTimeout(timer); resolve(message) })
      })
    },
    close: () => socket.close()
  }
}

export type WsMessage = { type: string, id?: string, payload?: any }
export type SubscriptionSocket = { socket: WsSocket, send (message: unknown): void, next (timeoutMs?: number): Promise<WsMessage>, closed: Promise<number> }

/** A WebSocket speaking `protocol` whose messages are read in order; `connection_init` is for the test to send. */
export async function openSubscriptionSocket (wsUrl: string, protocol: 'graphql-transport-ws' | 'graphql-ws' = 'graphql-transport-ws', options: WsSocket.ClientOptions = {}): Promise<SubscriptionSocket> {
  const socket = new WsSocket(wsUrl, protocol, options)
  const queue: WsMessage[] = []
  const waiting: Array<(m: WsMessage) => void> = []
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as WsMessage
    const waiter = waiting.shift()
    if (waiter === undefined) queue.push(message)
    else waiter(message)
  })
  const closed = new Promise<number>((resolve) => socket.once('close', resolve))
  await once(socket, 'open')
  const next = async (timeoutMs = 2000): Promise<WsMessage> => await new Promise((resolve, reject) => {
    const queued = queue.shift()
    if (queued !== undefined) return resolve(queued)
    const waiter = (m: WsMessage): void => { clearTimeout(timer); resolve(m) }
    const timer = setTimeout(() => {
      waiting.splice(waiting.indexOf(waiter), 1) // the next message is not lost to a waiter gone
      reject(new Error(`no answer within ${timeoutMs} ms (socket ${socket.readyState === WsSocket.OPEN ? 'open' : 'closed'})`))
    }, timeoutMs)
    waiting.push(waiter)
  })
  return { socket, send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)), next, closed }
}
