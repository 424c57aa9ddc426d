// One keyset page from the rows a query returned: the queries read one row
// more than a page, and that extra row is what says another page follows.
import { PAGE_SIZE } from '../../core/queries/blocks.ts'

export function toPage<Row, Item> (rows: Row[], present: (row: Row) => Item, cursor: (last: Row) => Record<string, unknown>, size = PAGE_SIZE) {
  const items = rows.slice(0, size)
  const last = items[items.length - 1]
  return { items: items.map(present), next_page_params: rows.length > size && last !== undefined ? cursor(last) : null }
}
