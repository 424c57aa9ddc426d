// Keyset pages, the one pager of the read model: a page is read from an index
// in its key order (or the reverse, for GraphQL's `last`), bounded by the
// keys of the rows it starts after and ends before, one row more than asked
// to tell whether more follow: never OFFSET, so a deep page costs what the
// first does.
//
// A key whose columns share one direction is bounded by one row comparison,
// a single index range (keysetClause: GraphQL's connections, and REST lists
// ordered so). An order that mixes ascending and descending columns cannot
// say "after the cursor" in one comparison: keysetPage reads it as the union
// of one range per column, rows equal on the columns before it and past the
// cursor on it, deepest range first, each a single index range scan.
import type { Knex } from 'knex'

export type KeyValue = string | number

export type KeysetPage<Value = KeyValue> = {
  /** Rows wanted (the query reads one more). */
  limit: number
  /** Keys of the rows the page starts after / ends before, in the page's order. */
  after?: Value[]
  before?: Value[]
  /** `last`: the rows nearest `before` (or the end), read backwards. */
  fromEnd: boolean
  /** The page's order, every column of the key alike. */
  order: 'asc' | 'desc'
}

export type PageRows<T> = { rows: T[], hasMore: boolean }

export type KeysetClause<Value = KeyValue> = { where: string, bindings: Value[], orderBy: string, limit: number }

const flip = (order: 'asc' | 'desc'): 'asc' | 'desc' => order === 'asc' ? 'desc' : 'asc'

/**
 * The bounds and order of a page over `columns`, the key in the page's order.
 * `where` starts with `and` (or is empty); bindings are in its order.
 */
export function keysetClause<Value = KeyValue> (columns: string[], page: KeysetPage<Value>): KeysetClause<Value> {
  const tuple = `(${columns.join(', ')})`
  const marks = `(${columns.map(() => '?').join(', ')})`
  const conditions: string[] = []
  const bindings: Value[] = []
  if (page.after !== undefined) {
    conditions.push(`${tuple} ${page.order === 'asc' ? '>' : '<'} ${marks}`)
    bindings.push(...page.after)
  }
  if (page.before !== undefined) {
    conditions.push(`${tuple} ${page.order === 'asc' ? '<' : '>'} ${marks}`)
    bindings.push(...page.before)
  }
  const scan = page.fromEnd ? flip(page.order) : page.order
  return {
    where: conditions.map((c) => ` and ${c}`).join(''),
    bindings,
    orderBy: columns.map((c) => `${c} ${scan}`).join(', '),
    limit: page.limit + 1
  }
}

/** Trims the probe row and puts a backwards read back in the page's order. */
export function toPageRows<T> (scanned: T[], page: KeysetPage<unknown>): PageRows<T> {
  const rows = scanned.slice(0, page.limit)
  if (page.fromEnd) rows.reverse()
  return { rows, hasMore: scanned.length > page.limit }
}

/** Groups rows that carry their parent's key, keeping every parent (an empty page when it has no rows). */
export function groupByParent<T extends { parent_key: string }> (keys: string[], rows: T[], page: KeysetPage<unknown>): Array<PageRows<T>> {
  const byKey = new Map<string, T[]>(keys.map((k) => [k, []]))
  for (const row of rows) byKey.get(row.parent_key)?.push(row)
  return keys.map((k) => toPageRows(byKey.get(k)!, page))
}

export type KeyColumn = { column: string, descending: boolean }

export type KeysetQuery = { sql: string, bindings: Knex.RawBinding[] }

const direction = (k: KeyColumn) => k.descending ? 'desc' : 'asc'

/**
 * `select <columns> from <from> where <where> [after cursor] order by <keys> limit <limit>`,
 * `limit` the rows read (the probe row included). `keys` name plain columns of
 * the select list; `where` must not be empty.
 */
export function keysetPage (options: {
  columns: string
  from: string
  where: string
  bindings: Knex.RawBinding[]
  keys: KeyColumn[]
  cursor: Knex.RawBinding[] | undefined
  limit: number
}): KeysetQuery {
  const { columns, from, where, bindings, keys, cursor, limit } = options
  const order = keys.map((k) => `${k.column} ${direction(k)}`).join(', ')
  if (cursor === undefined) {
    return { sql: `select ${columns} from ${from} where ${where} order by ${order} limit ${limit}`, bindings }
  }
  if (keys.every((k) => k.descending === keys[0]!.descending)) {
    const range = keysetClause(keys.map((k) => k.column), { limit: limit - 1, after: cursor, fromEnd: false, order: direction(keys[0]!) })
    return { sql: `select ${columns} from ${from} where ${where}${range.where} order by ${range.orderBy} limit ${range.limit}`, bindings: [...bindings, ...range.bindings] }
  }
  const parts: string[] = []
  const all: Knex.RawBinding[] = []
  for (let i = keys.length - 1; i >= 0; i--) {
    const equal = keys.slice(0, i).map((k) => `${k.column} = ?`)
    const past = `${keys[i]!.column} ${keys[i]!.descending ? '<' : '>'} ?`
    parts.push(`(select ${columns}, ${keys.length - 1 - i} as keyset_part from ${from}
      where ${where} and ${[...equal, past].join(' and ')} order by ${order} limit ${limit})`)
    all.push(...bindings, ...cursor.slice(0, i + 1))
  }
  return { sql: `${parts.join(' union all ')} order by keyset_part, ${order} limit ${limit}`, bindings: all }
}

/**
 * Rows that sit in several indexes of `table` (an address's rows: sent,
 * received, created), one page of them: each side, a where clause, reads at
 * most `sideLimit` rows from its own index in `orderBy`, and the sides are
 * merged with a row seen on two of them (a self-transfer) kept once. `tail`
 * ends the merged read: the page's limit, or Etherscan's offset and limit.
 */
export function mergedSidesSql ({ table, columns, wheres, keys, orderBy, sideLimit, tail }: {
  table: string
  columns: string
  wheres: string[]
  keys: string[]
  orderBy: string
  sideLimit: number | '?'
  tail: string
}): string {
  const side = (where: string) => `(select ${columns} from ${table} where ${where} order by ${orderBy} limit ${sideLimit})`
  return `select distinct on (${keys.join(', ')}) * from (${wheres.map(side).join(' union all ')}) s order by ${orderBy} ${tail}`
}
