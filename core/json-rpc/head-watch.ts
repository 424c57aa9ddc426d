// The JSON-RPC cache's ears: Geth's newHeads through the subscription hub
// that also feeds the gateway's WebSocket clients (subscriptions.ts). The
// fastest word of a new head any instance can have, writer or API-only: the
// node pushes it as it seals or imports the block. Listening first, on the
// same connection, the cache hears each head before any client subscribed
// through the gateway is told of it, so a client never asks about a head the
// cache has not heard.
import type { Logger } from '../logger.ts'
import { restartDelayMs } from '../restart-backoff.ts'
import type { HeardHead } from './answer-cache.ts'
import type { SubscriptionHub } from './subscriptions.ts'
import { subscriptionRequest } from './subscription-request.ts'

export type HeadWatchOptions = {
  hub: SubscriptionHub
  onHead (head: HeardHead): void
  /** The subscription was lost: heads may be missed until the next one. */
  onLost (): void
  log: Logger
}

export type HeadWatch = { stop (): void }

export function watchHeads (o: HeadWatchOptions): HeadWatch {
  let stopListening: (() => void) | undefined
  let stopped = false
  let failures = 0
  let retry: NodeJS.Timeout | undefined
  const stopLost = o.hub.onLost(o.onLost)

  function listener (resultText: string): void {
    const head = parseHead(resultText)
    if (head === undefined) o.log.warn({ head: resultText.slice(0, 200) }, 'json-rpc cache: a newHeads event without number, hash and parentHash')
    else o.onHead(head)
  }

  function subscribe (): void {
    o.hub.subscribe(subscriptionRequest(['newHeads']), listener).then((stop) => {
      if (stopped) stop()
      else stopListening = stop
    }, (err: unknown) => {
      if (stopped) return
      failures++
      o.log.warn({ err: (err as Error).message, failures }, 'json-rpc cache: subscribing to newHeads failed; answers are not kept until it succeeds')
      retry = setTimeout(subscribe, restartDelayMs(failures)).unref()
    })
  }
  subscribe()

  return {
    stop () {
      stopped = true
      clearTimeout(retry)
      stopLost()
      stopListening?.()
    }
  }
}

export function parseHead (text: string): HeardHead | undefined {
  try {
    const { number, hash, parentHash } = JSON.parse(text) as Record<string, unknown>
    if (typeof number !== 'string' || typeof hash !== 'string' || typeof parentHash !== 'string') return undefined
    return { number: Number(number), hash: hash.toLowerCase(), parentHash: parentHash.toLowerCase() }
  } catch {
    return undefined
  }
}
