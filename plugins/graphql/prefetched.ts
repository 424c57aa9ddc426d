// Connection pages a parent's resolver read together with the parent
// (lookahead.ts), left on the parent for the connection's loader (loaders.ts).
import type { KeysetPage, PageRows } from '../../core/queries/sql/keyset.ts'

const PREFETCHED = Symbol('pages read with the parent')

/** The same key for the same page and selection, in the resolver and in the loader. */
export function connectionKey (page: KeysetPage, selection: unknown): string {
  return JSON.stringify([page, selection])
}

/** `parent` with `page` left on it under `key`. */
export function withPrefetchedPage<T extends object> (parent: T, key: string, page: PageRows<unknown>): T {
  return Object.assign(parent, { [PREFETCHED]: new Map([[key, page]]) })
}

export function prefetchedPage<Row> (parent: unknown, key: string): PageRows<Row> | undefined {
  const pages = (parent as { [PREFETCHED]?: Map<string, PageRows<Row>> } | null | undefined)?.[PREFETCHED]
  return pages?.get(key)
}
