// Relay connections over keyset pages. Cursors are opaque (base64url of the
// row's key in the connection's order, tagged with the connection), stable
// across new blocks, and never offsets.
import type { KeysetPage, KeyValue, PageRows } from '../../core/queries/sql/keyset.ts'
import { fitsKeyColumn } from '../../core/queries/sql/cursor.ts'
import { userError } from './errors.ts'

/** The most rows one connection page may ask for. */
export const MAX_PAGE_SIZE = 100

export type ConnectionArgs = { first?: number | null, after?: string | null, last?: number | null, before?: string | null, count?: number | null, order?: 'ASC' | 'DESC' }

export type ConnectionKind<Row> = { tag: string, key: (row: Row) => KeyValue[], order?: 'asc' | 'desc' }

export function encodeCursor (tag: string, key: KeyValue[]): string {
  return Buffer.from(JSON.stringify([tag, ...key])).toString('base64url')
}

/** A cursor's key, each value checked against its column: a tampered one is the client's mistake, not a database error. */
function decodeCursor (tag: string, columns: readonly string[], cursor: string, argument: string): KeyValue[] {
  const fail = () => userError(`Invalid cursor provided as \`${argument}\` argument`)
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw fail()
  }
  if (!Array.isArray(parsed) || parsed[0] !== tag || parsed.length !== columns.length + 1) throw fail()
  const key = parsed.slice(1)
  if (!key.every((k, i) => fitsKeyColumn(columns[i]!, k))) throw fail()
  return key as KeyValue[]
}

/**
 * The page the arguments ask for; throws the error to answer for bad ones
 * (Blockscout's wording where it has one). `count` is accepted and ignored:
 * Blockscout needs it to turn `last` into an offset, keyset pages do not.
 */
export function pageOf (args: ConnectionArgs, kind: { tag: string, columns: readonly string[], order: 'asc' | 'desc' }): KeysetPage {
  const { first, last } = args
  if (first == null && last == null) throw userError('You must either supply `:first` or `:last`')
  if (first != null && last != null) throw userError('Supply `first` or `last`, not both')
  const size = (first ?? last)!
  if (size < 0 || size > MAX_PAGE_SIZE) throw userError(`\`${first != null ? 'first' : 'last'}\` must be between 0 and ${MAX_PAGE_SIZE}`)
  return {
    limit: size,
    after: args.after == null ? undefined : decodeCursor(kind.tag, kind.columns, args.after, 'after'),
    before: args.before == null ? undefined : decodeCursor(kind.tag, kind.columns, args.before, 'before'),
    fromEnd: last != null,
    order: kind.order
  }
}

export function toConnection<Row> (page: KeysetPage, { rows, hasMore }: PageRows<Row>, kind: ConnectionKind<Row>) {
  const edges = rows.map((node) => ({ node, cursor: encodeCursor(kind.tag, kind.key(node)) }))
  return {
    edges,
    pageInfo: {
      hasNextPage: page.fromEnd ? page.before !== undefined : hasMore,
      hasPreviousPage: page.fromEnd ? hasMore : page.after !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null
    }
  }
}
