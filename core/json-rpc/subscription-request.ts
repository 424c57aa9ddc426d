// What an eth_subscribe asks for, checked, and written in one canonical form:
// two clients asking for the same events, however they spell it (address
// case, a lone topic or a list of one, the order of an OR list), get the same
// key and so share one subscription to the node (subscriptions.ts).
import { JsonRpcError } from './errors.ts'
import * as p from './params.ts'

export const SUBSCRIPTION_KINDS = ['newHeads', 'logs', 'newPendingTransactions'] as const
export type SubscriptionKind = typeof SUBSCRIPTION_KINDS[number]

export type SubscriptionRequest = {
  kind: SubscriptionKind
  /** The params after the kind, as the node gets them. */
  options: unknown[]
  /** Equal for requests that hear the same events. */
  key: string
}

/** A logs subscription's filter as the node gets it: lower-case, sorted, with no redundant spelling. */
type CanonicalLogFilter = { address?: string[], topics?: Array<string[] | null> }

/** eth_subscribe's first param (core/json-rpc/methods.ts); the options are checked by kind in subscriptionRequest. */
export const subscriptionKind: p.Check = (v) =>
  (SUBSCRIPTION_KINDS as readonly unknown[]).includes(v) ? undefined : `expected one of ${SUBSCRIPTION_KINDS.join(', ')}, got ${JSON.stringify(v)?.slice(0, 80)}`

export const subscriptionOptions: p.Check = (v) =>
  typeof v === 'boolean' || (typeof v === 'object' && v !== null && !Array.isArray(v)) ? undefined : 'expected a log filter object or true/false'

/** Checks eth_subscribe's params (kind and options); throws INVALID_PARAMS naming what is wrong. */
export function subscriptionRequest (params: unknown[]): SubscriptionRequest {
  const [kind, options] = params
  const invalid = (reason: string): JsonRpcError => new JsonRpcError('INVALID_PARAMS', reason)
  switch (kind) {
    case 'newHeads':
      if (options != null) throw invalid('newHeads takes no options')
      return { kind, options: [], key: kind }
    case 'newPendingTransactions': {
      // Geth's own option: true sends whole transactions instead of their hashes.
      if (options != null && typeof options !== 'boolean') throw invalid('param 1 (fullTransactions): expected true or false')
      const full = options === true
      return { kind, options: full ? [true] : [], key: full ? `${kind}:full` : kind }
    }
    case 'logs': {
      const filter = options ?? {}
      const reason = p.filter(filter)
      if (reason !== undefined) throw invalid(`param 1 (filter): ${reason}`)
      // A subscription hears new blocks only: fromBlock and toBlock change nothing (Geth ignores them too), a block hash names an old one.
      if ((filter as Record<string, unknown>).blockHash != null) throw invalid('param 1 (filter): a logs subscription hears new blocks; blockHash cannot be given')
      const canonical = canonicalLogFilter(filter as Record<string, unknown>)
      return { kind, options: [canonical], key: `${kind}:${JSON.stringify(canonical)}` }
    }
    default:
      throw invalid(`param 0 (kind): expected one of ${SUBSCRIPTION_KINDS.join(', ')}`)
  }
}

/** A filter already checked by p.filter. Property order is fixed, so its JSON text is its key. */
export function canonicalLogFilter (filter: Record<string, unknown>): CanonicalLogFilter {
  const canonical: CanonicalLogFilter = {}
  const address = filter.address
  const addresses = address == null ? [] : lowerSorted(Array.isArray(address) ? address as string[] : [address as string])
  // No address, or an empty list, hears every address.
  if (addresses.length > 0) canonical.address = addresses
  const topics = filter.topics as Array<string | null | Array<string | null>> | null | undefined
  if (topics != null && topics.length > 0) {
    // Positions stay, trailing wildcards included: a filter with more topics than a log has does not match it.
    canonical.topics = topics.map((position) => {
      if (position === null) return null
      if (!Array.isArray(position)) return [position.toLowerCase()]
      // An empty list, or one holding null, is a wildcard to Geth.
      if (position.length === 0 || position.includes(null)) return null
      return lowerSorted(position as string[])
    })
  }
  return canonical
}

function lowerSorted (values: string[]): string[] {
  return [...new Set(values.map((v) => v.toLowerCase()))].sort()
}
