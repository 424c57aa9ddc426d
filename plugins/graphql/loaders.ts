// Loaders for every parent-to-children edge: mercurius queues the lookups of
// one request tick by tick and each batch becomes one SQL statement (or one
// JSON-RPC batch), so a page of 50 transactions with their blocks, addresses
// and internal transactions costs a handful of statements, not 50 of each.
import type { RpcClient } from '../../core/rpc/client.ts'
import type { KeysetPage, PageRows } from '../../core/queries/sql/keyset.ts'
import { ALL_TRANSACTION_COLUMN_GROUPS, type GraphqlTransaction, type TransactionColumnGroup } from '../../core/queries/graphql/records.ts'
import { ADDRESS_TRANSACTION_KEY, INTERNAL_TRANSACTION_KEY, LOG_KEY, TOKEN_TRANSFER_KEY } from '../../core/queries/graphql/connections.ts'
import type { InternalTransactionRow, LogRow, TokenTransferRow } from '../../core/indexer/types.ts'
import { pageOf, toConnection, type ConnectionArgs, type ConnectionKind } from './connection.ts'
import { transactionGroupsOf, type SelectionInfo } from './transaction-selection.ts'
import { connectionKey, prefetchedPage } from './prefetched.ts'
import type { Queries } from '../../core/queries/index.ts'

/** `info` only for loaders registered with `cache: false` (mercurius passes it to those alone). */
type Query<Obj> = { obj: Obj, params: Record<string, unknown>, info?: SelectionInfo }
type Loader<Obj> = (queries: Array<Query<Obj>>, context: object) => Promise<unknown[]>

/**
 * Every subscriber of an event resolves its fields from the same published
 * row objects (and nested rows loaded through here), each in its own
 * execution: a lookup made for a parent object is answered by the first one
 * made for that object with the same `key` (arguments, selection), so a
 * hundred subscribers of a transaction read its sender once, not a hundred
 * times. Rows of an HTTP request are its own objects: there this merges only
 * repeats. What is kept goes with the parent object.
 */
function sharedByParent<Obj> (loader: Loader<Obj>, keyOf: (query: Query<Obj>) => string = () => ''): Loader<Obj> {
  const made = new WeakMap<object, Map<string, Promise<unknown>>>()
  return async (queries, context) => {
    const missing: Array<Query<Obj>> = []
    const settle: Array<(batch: Promise<unknown[]>) => void> = []
    const results = queries.map((query) => {
      const parent = query.obj as object
      const key = keyOf(query)
      const known = made.get(parent) ?? made.set(parent, new Map()).get(parent)!
      let result = known.get(key)
      if (result === undefined) {
        const j = missing.push(query) - 1
        result = new Promise((resolve, reject) => settle.push((batch) => { batch.then((all) => resolve(all[j]), reject) }))
        known.set(key, result)
      }
      return result
    })
    if (missing.length > 0) {
      const batch = loader(missing, context)
      for (const s of settle) s(batch)
    }
    return await Promise.all(results)
  }
}

/** `columns`: the key columns a cursor holds, in order. */
export type ConnectionSpec<Row> = ConnectionKind<Row> & { columns: readonly string[] }

export const CONNECTIONS = {
  transactions: { tag: 'tx', columns: ADDRESS_TRANSACTION_KEY, key: (r: GraphqlTransaction) => [r.block_number, r.transaction_index] },
  tokenTransfers: { tag: 'tt', columns: TOKEN_TRANSFER_KEY, order: 'desc', key: (r: TokenTransferRow) => [r.block_number, r.log_index, r.batch_index] },
  internalTransactions: { tag: 'it', columns: INTERNAL_TRANSACTION_KEY, order: 'asc', key: (r: InternalTransactionRow) => [r.trace_index] },
  logs: { tag: 'log', columns: LOG_KEY, order: 'asc', key: (r: LogRow) => [r.log_index] }
} satisfies Record<string, ConnectionSpec<any>>

/** The page a connection's arguments ask for; throws the error to answer for bad ones. */
export function pageFor (spec: ConnectionSpec<any>, args: ConnectionArgs): KeysetPage {
  const order = args.order === 'ASC' ? 'asc' : spec.order ?? 'desc'
  return pageOf(args, { tag: spec.tag, columns: spec.columns, order })
}

/**
 * A connection field for many parents: queries with the same page arguments
 * (and, where `selectionOf` is given, the same selection) go in one
 * statement; bad arguments answer that field's error alone. A page the
 * parent's resolver already read (prefetched.ts) is answered from there.
 */
export function connectionLoader<Obj, Row, Selection = undefined> (spec: ConnectionSpec<Row>, parentKey: (obj: Obj) => string,
  list: (parents: string[], page: KeysetPage, selection: Selection) => Promise<Array<PageRows<Row>>>,
  selectionOf: (info: SelectionInfo | undefined) => Selection = () => undefined as Selection): Loader<Obj> {
  return sharedByParent(async (queries) => {
    const results: unknown[] = new Array(queries.length)
    const groups = new Map<string, { page: KeysetPage, selection: Selection, indexes: number[] }>()
    queries.forEach(({ obj, params, info }, i) => {
      try {
        const page = pageFor(spec, params as ConnectionArgs)
        const selection = selectionOf(info)
        const key = connectionKey(page, selection)
        const prefetched = prefetchedPage<Row>(obj, key)
        if (prefetched !== undefined) {
          results[i] = toConnection(page, prefetched, spec)
          return
        }
        const group = groups.get(key) ?? groups.set(key, { page, selection, indexes: [] }).get(key)!
        group.indexes.push(i)
      } catch (err) {
        results[i] = err
      }
    })
    for (const { page, selection, indexes } of groups.values()) {
      const pages = await list(indexes.map((i) => parentKey(queries[i]!.obj)), page, selection)
      indexes.forEach((queryIndex, j) => { results[queryIndex] = toConnection(page, pages[j]!, spec) })
    }
    return results
  }, ({ params, info }) => JSON.stringify([params, selectionOf(info)]))
}

/** A to-one edge by key; a null key answers null without a lookup. */
function byKey<Obj, Key, Row> (keyOf: (obj: Obj) => Key | null, find: (keys: Key[]) => Promise<Array<Row | undefined>>): Loader<Obj> {
  return sharedByParent(async (queries) => {
    const keys = queries.map((q) => keyOf(q.obj))
    const wanted = keys.filter((k): k is Key => k !== null)
    const found = wanted.length === 0 ? [] : await find(wanted)
    let next = 0
    return keys.map((k) => k === null ? null : found[next++] ?? null)
  })
}

type RpcSignature = { r: string, s: string, v: string }

/** r, s and v from the node (the index does not keep signatures), one JSON-RPC batch per request tick. */
function signatureLoader (rpc: RpcClient, part: keyof RpcSignature): Loader<GraphqlTransaction> {
  const batches = new WeakMap<object, Map<string, Promise<RpcSignature | null>>>()
  return sharedByParent(async (queries, context) => {
    const reply = (context as { reply?: object }).reply ?? context
    const known = batches.get(reply) ?? batches.set(reply, new Map()).get(reply)!
    const missing = [...new Set(queries.map((q) => q.obj.hash))].filter((h) => !known.has(h))
    if (missing.length > 0) {
      const fetched = rpc.batch<RpcSignature | null>(missing.map((h) => ({ method: 'eth_getTransactionByHash', params: [h] })))
      missing.forEach((h, i) => known.set(h, fetched.then((all) => all[i] ?? null)))
    }
    return await Promise.all(queries.map(async (q) => {
      const signature = await known.get(q.obj.hash)!
      return signature === null ? null : BigInt(signature[part]).toString()
    }))
  })
}

export function createLoaders (queries: Queries, rpc: RpcClient) {
  const addresses = (keyOf: (t: GraphqlTransaction) => string | null) => byKey(keyOf, async (keys: string[]) => await queries.graphql.findAddressesByHash(keys))
  return {
    Transaction: {
      block: byKey((t: GraphqlTransaction) => t.block_number, async (numbers: number[]) => await queries.graphql.findBlocksByNumber(numbers)),
      hasErrorInInternalTransactions: byKey((t: GraphqlTransaction) => t.hash, async (hashes: string[]) => await queries.graphql.findInternalErrors(hashes)),
      internalTransactions: connectionLoader(CONNECTIONS.internalTransactions, (t: GraphqlTransaction) => t.hash,
        async (parents, page) => await queries.graphql.listInternalTransactions({ transactions: parents, page })),
      logs: connectionLoader(CONNECTIONS.logs, (t: GraphqlTransaction) => t.hash, async (parents, page) => await queries.graphql.listTransactionLogs({ transactions: parents, page })),
      fromAddress: addresses((t) => t.from),
      toAddress: addresses((t) => t.to),
      createdContractAddress: addresses((t) => t.created_contract),
      r: signatureLoader(rpc, 'r'),
      s: signatureLoader(rpc, 's'),
      v: signatureLoader(rpc, 'v')
    },
    Address: {
      contractCode: byKey((a: { hash: string }) => a.hash, async (hashes: string[]) => await queries.graphql.findContractCodes(hashes)),
      // Reads only the column groups the selection needs; mercurius gives a loader the selection only uncached.
      transactions: {
        loader: connectionLoader(CONNECTIONS.transactions, (a: { hash: string }) => a.hash,
          async (parents, page, groups: readonly TransactionColumnGroup[]) => await queries.graphql.listAddressTransactions({ addresses: parents, page, groups }),
          (info) => info === undefined ? ALL_TRANSACTION_COLUMN_GROUPS : transactionGroupsOf(info)),
        opts: { cache: false }
      },
      tokenTransfers: connectionLoader(CONNECTIONS.tokenTransfers, (a: { hash: string }) => a.hash,
        async (parents, page) => await queries.graphql.listAddressTokenTransfers({ addresses: parents, page }))
    },
    TokenTransfer: {
      transaction: byKey((tt: TokenTransferRow) => tt.transaction_hash, async (hashes: string[]) => await queries.graphql.findTransactionsByHash(hashes)),
      token: byKey((tt: TokenTransferRow) => tt.token_address, async (keys: string[]) => await queries.graphql.findTokensByAddress(keys))
    }
  }
}
