// The topics Blockscout's v2 socket lets a client join (BlockScoutWeb.V2.UserSocket
// and its channels), with the reasons it refuses others. Topic names are kept
// as the client sent them: Blockscout broadcasts on lower-case hashes, and its
// front end joins them so.

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const INVALID_ADDRESS = 'Invalid address hash'
const UNMATCHED = 'unmatched topic'

const BLOCK_TOPICS = new Set(['new_block', 'indexing', 'indexing_internal_transactions'])

type Rule = (rest: string) => string | undefined

const RULES: Record<string, Rule> = {
  // blocks:new_block, the indexing ratios, or blocks:<miner> (here the clique signer).
  blocks: (rest) => BLOCK_TOPICS.has(rest) || ADDRESS.test(rest) ? undefined : INVALID_ADDRESS,
  // Any: new_transaction, new_pending_transaction, stats or a transaction hash.
  transactions: () => undefined,
  addresses: (rest) => rest === 'new_address' || ADDRESS.test(rest) ? undefined : INVALID_ADDRESS,
  tokens: () => undefined,
  token_instances: () => undefined,
  exchange_rate: () => undefined,
  rewards: (rest) => ADDRESS.test(rest) ? undefined : INVALID_ADDRESS
}

/** Why `topic` cannot be joined, or undefined when it can. */
export function refuseTopic (topic: string): string | undefined {
  const colon = topic.indexOf(':')
  if (colon <= 0) return UNMATCHED
  const prefix = topic.slice(0, colon)
  const rule = Object.hasOwn(RULES, prefix) ? RULES[prefix] : undefined
  return rule === undefined ? UNMATCHED : rule(topic.slice(colon + 1))
}

/** Topic names the broadcasts use. */
export const TOPICS = {
  newBlock: 'blocks:new_block',
  minerBlocks: (address: string) => `blocks:${address.toLowerCase()}`,
  newTransaction: 'transactions:new_transaction',
  newAddress: 'addresses:new_address',
  address: (address: string) => `addresses:${address.toLowerCase()}`,
  token: (address: string) => `tokens:${address.toLowerCase()}`
}
