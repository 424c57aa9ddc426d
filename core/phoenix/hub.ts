// Which sessions joined which topic, and broadcasting to them: a frame is
// encoded once per broadcast, whatever the number of subscribers. A broadcast
// carries no join_ref (Phoenix's fastlane does the same), which the client
// accepts on any join of the topic.
import { encodeFrame } from './frames.ts'

export type Subscriber = { pushText (text: string): void }

export type ChannelHub = {
  join (topic: string, subscriber: Subscriber): void
  leave (topic: string, subscriber: Subscriber): void
  hasSubscribers (topic: string): boolean
  broadcast (topic: string, event: string, payload: unknown): void
  /** Topics with at least one subscriber. */
  topics (): IterableIterator<string>
}

export function createChannelHub (): ChannelHub {
  const byTopic = new Map<string, Set<Subscriber>>()
  return {
    join (topic, subscriber) {
      let subscribers = byTopic.get(topic)
      if (subscribers === undefined) byTopic.set(topic, subscribers = new Set())
      subscribers.add(subscriber)
    },
    leave (topic, subscriber) {
      const subscribers = byTopic.get(topic)
      if (subscribers === undefined) return
      subscribers.delete(subscriber)
      if (subscribers.size === 0) byTopic.delete(topic)
    },
    hasSubscribers: (topic) => byTopic.has(topic),
    broadcast (topic, event, payload) {
      const subscribers = byTopic.get(topic)
      if (subscribers === undefined) return
      const text = encodeFrame({ joinRef: null, ref: null, topic, event, payload })
      for (const subscriber of [...subscribers]) subscriber.pushText(text)
    },
    topics: () => byTopic.keys()
  }
}
