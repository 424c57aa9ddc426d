// Keyset pages for GraphQL connections. A page is read from an index in its
// key order (or the reverse, for `last`), bounded by the `after` and `before`
// keys, one row more than asked to tell whether more follow: never OFFSET, so
// a deep page costs what the first does.

export type KeyValue = string | number

export type KeysetPage = {
  /** Rows wanted (the query reads one more). */
  limit: number
  /** Keys of the rows the page starts after / ends before, in the connection's order. */
  after?: KeyValue[]
  before?: KeyValue[]
  /** `last`: the rows nearest `before` (or the end), read backwards. */
  fromEnd: boolean
  /** The connection's order. */
  order: 'asc' | 'desc'
}

export type PageRows<T> = { rows: T[], hasMore: boolean }

const flip = (order: 'asc' | 'desc'): 'asc' | 'desc' => order === 'asc' ? 'desc' : 'asc'

/**
 * The bounds and order of a page over `columns`, the key in connection order.
 * `where` starts with `and` (or is empty); bindings are in its order.
 */
export function keysetClause (columns: string[], page: KeysetPage): { where: string, bindings: KeyValue[], orderBy: string, limit: number } {
  const tuple = `(${columns.join(', ')})`
  const marks = `(${columns.map(() => '?').join(', ')})`
  const conditions: string[] = []
  const bindings: KeyValue[] = []
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

/** Trims the probe row and puts a backwards read back in connection order. */
export function toPageRows<T> (scanned: T[], page: KeysetPage): PageRows<T> {
  const rows = scanned.slice(0, page.limit)
  if (page.fromEnd) rows.reverse()
  return { rows, hasMore: scanned.length > page.limit }
}

/** Groups rows that carry their parent's key, keeping every parent (an empty page when it has no rows). */
export function groupByParent<T extends { parent_key: string }> (keys: string[], rows: T[], page: KeysetPage): Array<PageRows<T>> {
  const byKey = new Map<string, T[]>(keys.map((k) => [k, []]))
  for (const row of rows) byKey.get(row.parent_key)?.push(row)
  return keys.map((k) => toPageRows(byKey.get(k)!, page))
}
