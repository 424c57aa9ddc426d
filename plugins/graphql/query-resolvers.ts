// Root queries: Blockscout's arguments and "not found" wording, over core queries.
import type { GraphQLResolveInfo } from 'graphql'
import { transactionsLookahead } from './lookahead.ts'
import { connectionKey, withPrefetchedPage } from './prefetched.ts'
import { notFound } from './errors.ts'
import { pageOf, toConnection, type ConnectionArgs } from './connection.ts'
import { CONNECTIONS } from './loaders.ts'
import { fromGlobalId } from './resolvers/node.ts'
import type { Queries } from '../../core/queries/index.ts'

const HASH = /^0x[0-9a-f]{64}$/i

/** Blockscout's answers for a well-formed id of a known type that names nothing stored. */
const NODE_NOT_FOUND = {
  Transaction: 'Transaction not found.',
  InternalTransaction: 'Internal transaction not found.',
  TokenTransfer: 'Token transfer not found.'
} as const

/** How to look up what a global id names, or undefined when it is no id of a known type ("Unknown node"). */
function nodeLookup (queries: Queries, id: string): { type: keyof typeof NODE_NOT_FOUND, find: () => Promise<object | undefined> } | undefined {
  const global = fromGlobalId(id)
  if (global?.type === 'Transaction' && HASH.test(global.local)) {
    return { type: 'Transaction', find: async () => (await queries.graphql.findTransactionsByHash([global.local]))[0] }
  }
  let local: { index?: unknown, log_index?: unknown, batch_index?: unknown, transaction_hash?: unknown }
  try {
    local = JSON.parse(global?.local ?? '')
  } catch {
    return undefined
  }
  const hash = typeof local?.transaction_hash === 'string' && HASH.test(local.transaction_hash) ? local.transaction_hash : undefined
  if (hash === undefined) return undefined
  const { index, log_index: logIndex, batch_index: batchIndex } = local
  if (global!.type === 'InternalTransaction' && Number.isSafeInteger(index)) {
    return { type: 'InternalTransaction', find: async () => await queries.graphql.findInternalTransaction({ hash, index: index as number }) }
  }
  if (global!.type === 'TokenTransfer' && Number.isSafeInteger(logIndex)) {
    return { type: 'TokenTransfer', find: async () => await queries.graphql.findTokenTransfer({ hash, logIndex: logIndex as number, batchIndex: Number.isSafeInteger(batchIndex) ? batchIndex as number : 0 }) }
  }
  return undefined
}

export function createQueryResolvers (queries: Queries) {
  return {
    Query: {
      async node (_root: unknown, { id }: { id: string }) {
        const lookup = nodeLookup(queries, id)
        if (lookup === undefined) return notFound('Unknown node')
        return await lookup.find() ?? notFound(NODE_NOT_FOUND[lookup.type])
      },
      async address (_root: unknown, { hash }: { hash: string }, _context: unknown, info: GraphQLResolveInfo) {
        const ahead = transactionsLookahead(info)
        if (ahead === undefined) return (await queries.graphql.findAddressesByHash([hash]))[0] ?? notFound('Address not found.')
        const found = await queries.graphql.findAddressWithTransactions({ address: hash, page: ahead.page, groups: ahead.groups })
        if (found === undefined) return notFound('Address not found.')
        return withPrefetchedPage(found.address, connectionKey(ahead.page, ahead.groups), found.transactions)
      },
      async addresses (_root: unknown, { hashes }: { hashes: string[] }) {
        const found = (await queries.graphql.findAddressesByHash(hashes)).filter((a) => a !== undefined)
        return found.length > 0 ? found : notFound('Addresses not found.')
      },
      async block (_root: unknown, { number }: { number: number }) {
        return (await queries.graphql.findBlocksByNumber([number]))[0] ?? notFound(`Block number ${number} was not found.`)
      },
      async transaction (_root: unknown, { hash }: { hash: string }) {
        return (await queries.graphql.findTransactionsByHash([hash]))[0] ?? notFound('Transaction not found.')
      },
      async tokenTransfers (_root: unknown, args: ConnectionArgs & { tokenContractAddressHash: string }) {
        const spec = CONNECTIONS.tokenTransfers
        const page = pageOf(args, { tag: spec.tag, columns: spec.columns, order: spec.order })
        return toConnection(page, await queries.graphql.listTokenTransfers({ token: args.tokenContractAddressHash, page }), spec)
      }
    },
    Node: {
      // Rows tell their type by the columns only they have.
      resolveType: (row: object) => 'trace_index' in row ? 'InternalTransaction' : 'token_type' in row ? 'TokenTransfer' : 'Transaction'
    }
  }
}
