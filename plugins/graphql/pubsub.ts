// The subscriptions' publish/subscribe, in process, with a bound per
// subscriber. mercurius gives each subscription a queue that it drains into
// the WebSocket one message at a time, waiting for each to be written; a
// client that stops reading (or reads slower than blocks come) makes the
// queue grow without end, and with it the process. Here a subscriber is
// judged when a burst of events begins (the indexer publishes a committed
// batch at once, thousands of transactions during a backfill, which a reading
// client works off in a moment): if it still has `maxQueued` events waiting
// from earlier bursts, its subscription is ended (the client gets `complete`
// once what is queued has gone out) and it may subscribe again. So a
// subscription holds at most `maxQueued` events and one burst.
import { EventEmitter } from 'node:events'
import type { Logger } from '../../core/logger.ts'

/** What mercurius hands `subscribe`: its queue (a readable stream in object mode) and the closers it calls on unsubscribe. */
type Queue = { readableLength: number, push (payload: unknown): boolean, close?: Array<() => void> }
export type PublishedEvent = { topic: string, payload: unknown }

export type BoundedPubSub = {
  subscribe (topic: string, queue: Queue): Promise<void>
  publish (event: PublishedEvent, callback?: (err?: Error) => void): void
}

export function createBoundedPubSub ({ maxQueued, log }: { maxQueued: number, log: Logger }): BoundedPubSub {
  const emitter = new EventEmitter()
  // One listener per subscription: as many as there are subscribers.
  emitter.setMaxListeners(0)
  // Events published in one go (one synchronous run) are one burst.
  let burst = 0
  let burstOpen = false
  const currentBurst = (): number => {
    if (!burstOpen) {
      burstOpen = true
      queueMicrotask(() => { burstOpen = false; burst++ })
    }
    return burst
  }
  return {
    async subscribe (topic, queue) {
      let judged = -1
      const unsubscribe = (): void => { emitter.off(topic, listener) }
      function listener (payload: unknown): void {
        const now = currentBurst()
        if (now !== judged) {
          judged = now
          if (queue.readableLength >= maxQueued) {
            log.warn({ topic, queued: queue.readableLength }, 'a GraphQL subscriber fell too far behind: its subscription is ended')
            unsubscribe()
            // The end of the stream: mercurius sends `complete` after the queued events. Its own close pushes the end again, which a stream allows.
            queue.push(null)
            return
          }
        }
        queue.push(payload)
      }
      emitter.on(topic, listener)
      ;(queue.close ??= []).push(unsubscribe)
    },
    publish ({ topic, payload }, callback) {
      emitter.emit(topic, payload)
      callback?.()
    }
  }
}
