// Which REST routes the head-keyed cache answers: those an explorer asks for
// again and again (its home page polls the first four; lists and details of
// the newest and most popular subjects follow) whose answer is read from the
// index alone, so that it changes only with the indexed head. Left out on
// purpose: routes that ask the node (indexing status, state changes, the
// pending count) or whose answer follows the clock rather than the head.

export type CachedRoute = {
  /** Request headers the body depends on: part of the cache key, and named in Vary. */
  varyHeaders: readonly string[]
}

const V2 = '/api/v2'
const route = (varyHeaders: string[] = []): CachedRoute => ({ varyHeaders })

export const CACHED_ROUTES: ReadonlyMap<string, CachedRoute> = new Map([
  [`${V2}/main-page/blocks`, route()],
  [`${V2}/main-page/transactions`, route()],
  // Gas prices come as objects with their parts when the request asks so.
  [`${V2}/stats`, route(['updated-gas-oracle'])],
  [`${V2}/stats/charts/transactions`, route()],
  [`${V2}/blocks`, route()],
  [`${V2}/transactions`, route()],
  [`${V2}/blocks/:block_hash_or_number_param`, route()],
  [`${V2}/transactions/:transaction_hash_param`, route()],
  // A summary changes with the head (a reorg), a verification or a tag, each of which empties the cache;
  // a pending transaction's null lasts until the head that holds it, a new key.
  [`${V2}/transactions/:transaction_hash_param/summary`, route()],
  [`${V2}/transactions/:transaction_hash_param/interpretation`, route()],
  [`${V2}/addresses/:address_hash_param`, route()],
  [`${V2}/addresses/:address_hash_param/transactions`, route()],
  [`${V2}/tokens/:address_hash_param/transfers`, route()]
])
