// The pubsub topics of GraphQL subscriptions: subscription.ts subscribes to
// them and feed.ts publishes on them. Here rather than in feed.ts: the
// resolvers are imported by the plugin and never import back into it.
export const TOPICS = {
  newBlock: 'NEW_BLOCK',
  newTransaction: 'NEW_TRANSACTION',
  /** Per token contract, as Blockscout's topic: the lower-case address. */
  tokenTransfers: (token: string) => `TOKEN_TRANSFERS_${token.toLowerCase()}`
}
