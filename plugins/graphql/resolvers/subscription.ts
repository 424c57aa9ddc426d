// Subscriptions, published by feed.ts from the indexer's commits.
import { TOPICS } from './topics.ts'

type PubSub = { subscribe (topic: string): Promise<AsyncIterable<unknown>> }
type Context = { pubsub: PubSub }

export const subscriptionResolvers = {
  Subscription: {
    newBlock: { subscribe: async (_root: unknown, _args: unknown, { pubsub }: Context) => await pubsub.subscribe(TOPICS.newBlock) },
    newTransaction: { subscribe: async (_root: unknown, _args: unknown, { pubsub }: Context) => await pubsub.subscribe(TOPICS.newTransaction) },
    tokenTransfers: {
      subscribe: async (_root: unknown, { tokenContractAddressHash }: { tokenContractAddressHash: string }, { pubsub }: Context) =>
        await pubsub.subscribe(TOPICS.tokenTransfers(tokenContractAddressHash))
    }
  }
}
