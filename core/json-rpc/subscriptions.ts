// The fan-out of the node's subscriptions to the gateway's WebSocket clients.
// One subscription to the node per distinct request (its canonical key,
// subscription-request.ts), however many clients asked for it: each event is
// serialised once and handed to every listener. The node's subscription is
// ended when its last listener leaves.
//
// When the node's WebSocket closes (Geth crashed and the supervisor restarts
// it, or it was restarted on purpose), every subscription still listened to is
// set up again on a new connection, retried with capped backoff until the node
// is back. Listeners keep listening throughout: their clients keep their
// subscription ids and hear events again once the node is back. Events of the
// blocks sealed while the connection was down are not replayed (Geth's own
// subscriptions do not either).
import type { Logger } from '../logger.ts'
import { restartDelayMs } from '../restart-backoff.ts'
import type { RpcSocket, RpcSocketOptions } from '../rpc/socket-client.ts'
import type { SubscriptionRequest } from './subscription-request.ts'

/** Gets each event's result as JSON text, serialised once for all listeners. */
export type SubscriptionListener = (resultText: string) => void

/** Opens a connection to the node; its options say where notifications and the close go. */
export type OpenNodeSocket = (handlers: Pick<RpcSocketOptions, 'onNotification' | 'onClose'>) => Promise<RpcSocket>

export type SubscriptionHubOptions = { openSocket: OpenNodeSocket, log: Logger }

export type SubscriptionHubStats = {
  /** Distinct subscriptions listened to. */
  topics: number
  /** Subscriptions live on the node now. */
  nodeSubscriptions: number
  /** eth_subscribe calls the node has accepted since the hub was made (set-ups after a restart included). */
  nodeSubscribeCalls: number
}

export type SubscriptionHub = {
  /** Listens to `request`; resolves once the node's subscription is live, with the function that stops listening. */
  subscribe (request: SubscriptionRequest, listener: SubscriptionListener): Promise<() => void>
  stats (): SubscriptionHubStats
  /** Calls `listener` each time the node's connection closes (events may be missed until the subscriptions are set up again); returns the function that stops it. */
  onLost (listener: () => void): () => void
  /** Sets lost subscriptions up again now, without waiting for the backoff (the supervisor says the node is back). */
  restoreNow (): void
  /** Ends every subscription and the connection; no reconnection after this. */
  close (): void
}

type Topic = {
  request: SubscriptionRequest
  listeners: Set<SubscriptionListener>
  /** The node's subscription id while it is live. */
  nodeId: string | undefined
  /** The eth_subscribe under way, if any. */
  starting: Promise<void> | undefined
}

export function createSubscriptionHub ({ openSocket, log }: SubscriptionHubOptions): SubscriptionHub {
  const topics = new Map<string, Topic>()
  const byNodeId = new Map<string, Topic>()
  const lostListeners = new Set<() => void>()
  let socket: Promise<RpcSocket> | undefined
  let nodeSubscribeCalls = 0
  let failuresInARow = 0
  let retryTimer: NodeJS.Timeout | undefined
  let closed = false

  function onNotification (nodeId: string, result: unknown): void {
    const topic = byNodeId.get(nodeId)
    if (topic === undefined) return
    const text = JSON.stringify(result)
    for (const listener of topic.listeners) {
      try {
        listener(text)
      } catch (err) {
        log.error({ err }, 'a subscription listener failed')
      }
    }
  }

  function onClose (): void {
    socket = undefined
    byNodeId.clear()
    for (const topic of topics.values()) topic.nodeId = undefined
    for (const listener of lostListeners) listener()
    if (closed || topics.size === 0) return
    log.warn({ subscriptions: topics.size }, 'the node\'s WebSocket closed; setting its subscriptions up again')
    scheduleRestore()
  }

  /** The open connection, opening one if there is none. */
  async function connection (): Promise<RpcSocket> {
    socket ??= openSocket({ onNotification, onClose }).catch((err: unknown) => {
      socket = undefined
      throw err
    })
    return await socket
  }

  async function start (topic: Topic): Promise<void> {
    if (topic.nodeId !== undefined) return
    topic.starting ??= (async () => {
      const node = await connection()
      const nodeId = await node.call<string>('eth_subscribe', [topic.request.kind, ...topic.request.options])
      nodeSubscribeCalls++
      if (topics.get(topic.request.key) !== topic) {
        // Every listener left while it was being set up.
        node.call('eth_unsubscribe', [nodeId]).catch(() => {})
        return
      }
      topic.nodeId = nodeId
      byNodeId.set(nodeId, topic)
    })().finally(() => { topic.starting = undefined })
    await topic.starting
  }

  function scheduleRestore (): void {
    if (retryTimer !== undefined || closed) return
    failuresInARow++
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      restore().catch(() => {})
    }, restartDelayMs(failuresInARow)).unref()
  }

  async function restore (): Promise<void> {
    if (closed || topics.size === 0) return
    const results = await Promise.allSettled([...topics.values()].map(start))
    const failed = results.filter((r) => r.status === 'rejected')
    if (failed.length > 0) {
      log.warn({ failed: failed.length, err: (failed[0] as PromiseRejectedResult).reason }, 'setting subscriptions up again failed; retrying')
      scheduleRestore()
      return
    }
    failuresInARow = 0
    log.info({ subscriptions: topics.size }, 'subscriptions set up again on the node')
  }

  function leave (topic: Topic, listener: SubscriptionListener): void {
    topic.listeners.delete(listener)
    if (topic.listeners.size > 0 || topics.get(topic.request.key) !== topic) return
    topics.delete(topic.request.key)
    if (topic.nodeId === undefined) return
    byNodeId.delete(topic.nodeId)
    const nodeId = topic.nodeId
    topic.nodeId = undefined
    socket?.then(async (node) => await node.call('eth_unsubscribe', [nodeId])).catch((err: unknown) => {
      log.debug({ err }, 'ending a subscription on the node failed (the connection is gone with it)')
    })
  }

  return {
    async subscribe (request, listener) {
      if (closed) throw new Error('the subscription hub is closed')
      let topic = topics.get(request.key)
      if (topic === undefined) {
        topic = { request, listeners: new Set(), nodeId: undefined, starting: undefined }
        topics.set(request.key, topic)
      }
      const joined = topic
      joined.listeners.add(listener)
      try {
        await start(joined)
      } catch (err) {
        leave(joined, listener)
        throw err
      }
      let left = false
      return () => {
        if (left) return
        left = true
        leave(joined, listener)
      }
    },
    stats: () => ({ topics: topics.size, nodeSubscriptions: byNodeId.size, nodeSubscribeCalls }),
    onLost (listener) {
      const entry = (): void => listener()
      lostListeners.add(entry)
      return () => { lostListeners.delete(entry) }
    },
    restoreNow () {
      if (retryTimer === undefined) return
      clearTimeout(retryTimer)
      retryTimer = undefined
      restore().catch(() => {})
    },
    close () {
      closed = true
      clearTimeout(retryTimer)
      topics.clear()
      byNodeId.clear()
      socket?.then((node) => node.close()).catch(() => {})
    }
  }
}
