// Follow stage's wake-up: Geth's `newHeads` subscription over WebSocket ends
// the idle wait as soon as a block is sealed, instead of at the next poll,
// and names the new head's number, so that follow fetches it at once, even
// while it is still storing the last batch. Polling stays as the fallback (no
// WebSocket URL, or the socket is down).
import { WebSocket } from 'undici'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from '../logger.ts'

const RECONNECT_MS = 1000

export type NewHeads = {
  /** Resolves after `ms`, or earlier when the node announces a new head. */
  wait (ms: number, signal: AbortSignal): Promise<void>
  /** Calls `listener` with the number of each head the node announces (before wait() resolves); returns the function that stops it. */
  onHead (listener: (head: number) => void): () => void
  /** Whether the subscription is up: every head will be announced. */
  live (): boolean
  close (): void
}

export function watchNewHeads (wsUrl: string | undefined, log: Logger): NewHeads {
  const waiters = new Set<() => void>()
  const listeners = new Set<(head: number) => void>()
  let socket: WebSocket | undefined
  let closed = false
  let subscribed = false

  function connect (): void {
    if (closed || wsUrl === undefined) return
    const ws = new WebSocket(wsUrl)
    socket = ws
    ws.addEventListener('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })))
    ws.addEventListener('message', (event) => {
      if (typeof event.data !== 'string') return
      if (!subscribed && isSubscribed(event.data)) subscribed = true
      if (event.data.includes('"eth_subscription"')) {
        const head = announcedHead(event.data)
        if (head !== undefined) for (const listener of listeners) listener(head)
        for (const wake of waiters) wake()
      }
    })
    ws.addEventListener('close', () => {
      subscribed = false
      if (closed) return
      log.debug('newHeads socket closed; polling until it reconnects')
      setTimeout(connect, RECONNECT_MS).unref()
    })
    ws.addEventListener('error', () => {})
  }
  connect()

  return {
    async wait (ms, signal) {
      let wake: () => void = () => {}
      const woken = new Promise<void>((resolve) => { wake = resolve })
      waiters.add(wake)
      try {
        await Promise.race([sleep(ms, undefined, { signal, ref: false }).catch(() => {}), woken])
      } finally {
        waiters.delete(wake)
      }
    },
    onHead (listener) {
      // A wrapper of its own: one function added twice is two listeners, each removed by its own call.
      const entry = (head: number): void => listener(head)
      listeners.add(entry)
      return () => { listeners.delete(entry) }
    },
    live: () => subscribed,
    close () {
      closed = true
      socket?.close()
    }
  }
}

/** The block number of a newHeads notification, or undefined for anything else. */
export function announcedHead (text: string): number | undefined {
  try {
    const number = (JSON.parse(text) as { params?: { result?: { number?: unknown } } }).params?.result?.number
    if (typeof number !== 'string' || !/^0x[0-9a-f]+$/i.test(number)) return undefined
    return Number(number)
  } catch {
    return undefined
  }
}

/** The answer to our eth_subscribe (id 1) with a subscription id. */
function isSubscribed (text: string): boolean {
  try {
    const answer = JSON.parse(text) as { id?: unknown, result?: unknown }
    return answer.id === 1 && typeof answer.result === 'string'
  } catch {
    return false
  }
}
