// Keyset pages over orders that mix ascending and descending keys, where one
// row comparison cannot say "after the cursor". The page is the union of one
// range per key: rows equal on the keys before it and past the cursor on it,
// deepest range first. Each range is a single index range scan, so a deep
// page costs what the first does.

import type { Knex } from 'knex'

export type KeyColumn = { column: string, descending: boolean }

export type KeysetQuery = { sql: string, bindings: Knex.RawBinding[] }

const direction = (k: KeyColumn) => k.descending ? 'desc' : 'asc'

/**
 * `select <columns> from <from> where <where> [after cursor] order by <keys> limit <limit>`.
 * `keys` name plain columns of the select list; `where` must not be empty.
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
