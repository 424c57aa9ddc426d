// Keyset pages as Blockscout answers them: at most 50 items, and
// next_page_params = the request's own parameters (less apikey, type and the
// previous cursor) merged with the cursor taken from the page's last item, or
// null on the last page. Queries read one row more than a page to know.
import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { AFTER_ALL, BEFORE_ALL, clampBigint, clampInteger } from '../../core/queries/sql/cursor.ts'
import type { TokenTransferCursor, TokenTransferRecord } from '../../core/queries/tokens/token-transfers.ts'
import { page } from './schemas.ts'

/** A cursor key's query parameter: any schema with a JSON type (the next page's key is sent with that type). */
type CursorParam = { readonly type: string | readonly string[] }
/** next_page_params' schema: each cursor key with its parameter's type, then the keys a page adds besides. */
type NextPageSchema<Params extends Record<string, CursorParam>> = { readonly [Key in keyof Params]: { readonly type: Params[Key]['type'] } }
/** What a page builder may put in next_page_params: the cursor keys and the extra ones, nothing undeclared. */
type NextPageParams<Keys extends PropertyKey> = { [Key in Keys]?: unknown }

/**
 * A list route's cursor, declared once: `params` are the query parameters
 * that resume a list (spread into the route's `query()`), in the order its
 * next_page_params lists them; `extra` the keys a next page carries besides
 * (a filter it keeps), or a key's schema where the page sends it otherwise
 * than it is asked (a number asked as a string). From it come the response schema (`response(item)`)
 * and the page builders: `page` (next_page_params is the cursor alone) and
 * `keysetPage` (the request's own parameters echoed, the cursor keys replaced).
 */
export function listCursor<const Params extends Record<string, CursorParam>, const Extra extends Record<string, object> = {}> (
  params: Params,
  extra: Extra = {} as Extra
) {
  const keys = Object.keys(params)
  const next = { ...Object.fromEntries(keys.map((key) => [key, { type: params[key]!.type }])), ...extra } as Omit<NextPageSchema<Params>, keyof Extra> & Extra
  type Next = NextPageParams<keyof Params | keyof Extra>
  return {
    params,
    response: <const Item extends object>(item: Item) => page(item, next),
    page: <Row, Item>(rows: Row[], present: (row: Row) => Item, cursor: (last: Row) => Next, size = PAGE_SIZE) =>
      toPage(rows, present, cursor, size),
    keysetPage: <Row, Item>(rows: Row[], present: (row: Row) => Item, cursor: (last: Row, next: Row) => Next, query: object, size = PAGE_SIZE) =>
      keysetPage(rows, present, cursor, query as Record<string, unknown>, keys, size)
  }
}

/** A page whose next_page_params is the cursor alone (the lists that echo nothing of the request). */
export function toPage<Row, Item> (rows: Row[], present: (row: Row) => Item, cursor: (last: Row) => Record<string, unknown>, size = PAGE_SIZE) {
  const items = rows.slice(0, size)
  const last = items[items.length - 1]
  return { items: items.map(present), next_page_params: rows.length > size && last !== undefined ? cursor(last) : null }
}

/** Blockscout does not echo these: type must be sent again with each page. */
const NEVER_ECHOED = ['apikey', 'type']

export function keysetPage<Row, Item> (
  rows: Row[],
  present: (row: Row) => Item,
  cursor: (last: Row, next: Row) => Record<string, unknown>,
  query: Record<string, unknown>,
  cursorKeys: string[],
  size = PAGE_SIZE
): { items: Item[], next_page_params: Record<string, unknown> | null } {
  const items = rows.slice(0, size)
  if (rows.length <= size) return { items: items.map(present), next_page_params: null }
  const echoed = Object.fromEntries(Object.entries(query).filter(([key]) => !NEVER_ECHOED.includes(key) && !cursorKeys.includes(key)))
  return { items: items.map(present), next_page_params: { ...echoed, ...cursor(rows[size - 1]!, rows[size]!) } }
}

/** `limit` (on the global lists) can only shrink a page. */
export const pageSize = (limit: number | null | undefined): number => limit == null ? PAGE_SIZE : Math.min(PAGE_SIZE, Math.max(1, Math.trunc(limit)))

/** An integer cursor value from the query, clamped to its column, or `fallback` when absent. */
export const bigintParam = (value: number | undefined, fallback: number): number => value === undefined ? fallback : clampBigint(value)
export const integerParam = (value: number | undefined, fallback: number): number => value === undefined ? fallback : clampInteger(value)

/**
 * The (block_number, index) cursor of a newest-first list, clamped to its
 * columns; an index left out passes the whole block. Undefined without a block.
 */
export function blockIndexCursor (q: { block_number?: number, index?: number }): { blockNumber: number, index: number } | undefined {
  return q.block_number === undefined ? undefined : { blockNumber: bigintParam(q.block_number, 0), index: integerParam(q.index, AFTER_ALL) }
}

export type TokenTransferPageQuery = {
  block_number?: number
  index?: number
  batch_log_index?: number
  index_in_batch?: number
}

/**
 * Where the previous page stopped. Inside an ERC-1155 batch the batch_* keys
 * name the item; otherwise (block_number, index) names a whole log already shown.
 */
export function tokenTransferCursor (q: TokenTransferPageQuery, order: 'asc' | 'desc'): TokenTransferCursor | undefined {
  if (q.block_number === undefined) return undefined
  const blockNumber = clampBigint(q.block_number)
  if (q.batch_log_index !== undefined && q.index_in_batch !== undefined) {
    return { blockNumber, logIndex: clampInteger(q.batch_log_index), batchIndex: clampInteger(q.index_in_batch) }
  }
  const whole = order === 'desc' ? BEFORE_ALL : AFTER_ALL
  return { blockNumber, logIndex: integerParam(q.index, order === 'desc' ? AFTER_ALL : BEFORE_ALL), batchIndex: whole }
}

/** Blockscout's token-transfer cursor: no items_count; the batch_* keys when the page ends inside a batch. */
export function nextTokenTransferParams (last: TokenTransferRecord, next: TokenTransferRecord): Record<string, unknown> {
  const params: Record<string, unknown> = { block_number: last.block_number, index: last.log_index }
  if (next.block_number === last.block_number && next.log_index === last.log_index) {
    Object.assign(params, {
      batch_log_index: last.log_index,
      batch_block_hash: last.block_hash,
      batch_transaction_hash: last.transaction_hash,
      index_in_batch: last.batch_index
    })
  }
  return params
}
