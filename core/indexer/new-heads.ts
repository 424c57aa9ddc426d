// Follow stage's wake-up: Geth's `newHeads` subscription over WebSocket ends
// the idle wait as soon as a block is sealed, instead of at the next poll.
// Polling stays as the fallback (no WebSocket URL, or the socket is down).
import { WebSocket } from 'undici'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from '../logger.ts'

const RECONNECT_MS = 1000

export type NewHeads = {
  /** Resolves after `ms`, or earlier when the node announces a new head. */
  wait (ms: number, signal: AbortSignal): Promise<void>
  close (): void
}

export function watchNewHeads (wsUrl: string | undefined, log: Logger): NewHeads {
  const waiters = new Set<() => void>()
  let socket: WebSocket | undefined
  let closed = false

  function connect (): void {
    if (closed || wsUrl === undefined) return
    const ws = new WebSocket(wsUrl)
    socket = ws
    ws.addEventListener('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })))
    ws.addEventListener('message', (event) => {
      if (typeof event.data === 'string' && event.data.includes('"eth_subscription"')) {
        for (const wake of waiters) wake()
      }
    })
    ws.addEventListener('close', () => {
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
    close () {
      closed = true
      socket?.close()
    }
  }
}
