// Etherscan-style pages (page and offset, ascending or descending) over an
// address's rows. An address's rows sit in several indexes (sent, received,
// created), each ordered by block: every side reads at most skip + limit rows
// from its own index in the page's order, and the sides are merged with a
// row seen twice (a self-transfer) kept once. The result window (page ×
// offset, at most 10,000) bounds what a request reads, however long the
// chain or busy the address.
import type { Knex } from 'knex'
import type { QueryDb } from '../sql/query-db.ts'
import { mergedSidesSql } from '../sql/keyset.ts'

export type SortOrder = 'asc' | 'desc'

export type PageWindow = { sort: SortOrder, skip: number, limit: number }

export type MergedPage = {
  table: string
  /** Where clauses, one per index read, each with its own bindings. */
  sides: Array<{ where: string, bindings: Knex.RawBinding[] }>
  /** The columns that order and identify a row, in index order. */
  keys: string[]
  window: PageWindow
}

/** The SQL of the page's rows (whole rows of `table`), to be joined by the caller as `alias`. */
export function mergedPageSql ({ table, sides, keys, window }: MergedPage): { sql: string, bindings: Knex.RawBinding[] } {
  const order = keys.map((k) => `${k} ${window.sort}`).join(', ')
  // Bound, not written into the text: knex plans each query for its values,
  // and a named prepared statement per page size would pile up in every session.
  const reach = window.skip + window.limit
  if (sides.length === 1) {
    return {
      sql: `select * from ${table} where ${sides[0]!.where} order by ${order} offset ? limit ?`,
      bindings: [...sides[0]!.bindings, window.skip, window.limit]
    }
  }
  return {
    sql: mergedSidesSql({ table, columns: '*', wheres: sides.map((s) => s.where), keys, orderBy: order, sideLimit: '?', tail: 'offset ? limit ?' }),
    bindings: [...sides.flatMap((s) => [...s.bindings, reach]), window.skip, window.limit]
  }
}

/**
 * `select <fields> from (<page>) <alias> <joins> order by <keys>`: the
 * joins run for the page's rows only.
 */
export async function readMergedPage<Row> (db: QueryDb, page: MergedPage, alias: string, fields: string, joins: string): Promise<Row[]> {
  const { sql, bindings } = mergedPageSql(page)
  const order = page.keys.map((k) => `${alias}.${k} ${page.window.sort}`).join(', ')
  const { rows } = await db.knex.raw(`select ${fields} from (${sql}) ${alias} ${joins} order by ${order}`, bindings)
  return rows as Row[]
}
