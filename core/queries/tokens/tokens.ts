// Token reads for the explorer APIs: the token list in Blockscout's order
// (holders, then name, then address), a token, its counters and its holders.
// Every list is a keyset page read from an index in its own order.
import type { Knex } from 'knex'
import type { Hex } from '../../rows.ts'
import { hexColumn } from '../sql/columns.ts'
import { PAGE_SIZE } from '../sql/page-size.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type TokenRecord = {
  address: Hex
  type: string
  name: string | null
  symbol: string | null
  decimals: number | null
  total_supply: string | null
  holder_count: number
}

export const TOKEN_COLUMNS = 'k.address, k.type, k.name, k.symbol, k.decimals, k.total_supply::text, k.holder_count'

/** The token at `address` (an SQL expression) as row `t`, for row_to_json(t). */
export const tokenJoin = (address: string): string => `cross join lateral (select ${TOKEN_COLUMNS} from tokens k where k.address = ${address}) t`

export type TokenJson = Omit<TokenRecord, 'address'> & { address: string }
/** A TokenRecord from row_to_json(t), which writes bytea as '\x...' text. */
export const tokenFromJson = (json: TokenJson): TokenRecord => ({ ...json, address: `0x${json.address.slice(2)}` })

/**
 * A token row as read (its address as bytes, which the lists' keysets order
 * by) with the address as 0x-hex.
 */
const tokenFromRow = (row: Omit<TokenRecord, 'address'> & { address: Buffer }): TokenRecord => ({ ...row, address: `0x${row.address.toString('hex')}` })

export type TokenListCursor = { holderCount: number, isNameNull: boolean, name: string | null, address: Buffer }
export type TokenListFilter = { types: string[] | undefined, q: string | undefined }

/** The text a token is searched by, as Blockscout builds it; tokens_search (migration 3) indexes this very expression. */
export const TOKEN_SEARCH_VECTOR = '(case when k.symbol is not null then to_tsvector(\'english\', k.symbol || \' \' || k.name) else to_tsvector(\'english\', k.name) end)'

/** Blockscout's search: every word of q is a prefix of a word of the symbol or the name (English text search). */
export function searchTerm (q: string): string | undefined {
  const words = q.match(/[a-zA-Z0-9]+/g)
  return words === null ? undefined : words.map((w) => `${w}:*`).join(' & ')
}

function filterSql (filter: TokenListFilter, bindings: Knex.RawBinding[]): string {
  const parts: string[] = []
  if (filter.types !== undefined && filter.types.length > 0) {
    parts.push(`k.type in (${filter.types.map(() => '?').join(', ')})`)
    bindings.push(...filter.types)
  }
  const q = filter.q?.trim() ?? ''
  if (/^0x[0-9a-fA-F]{40}$/.test(q)) {
    parts.push('k.address = ?')
    bindings.push(Buffer.from(q.slice(2), 'hex'))
  } else {
    const term = q === '' ? undefined : searchTerm(q)
    if (term !== undefined) {
      parts.push(`${TOKEN_SEARCH_VECTOR} @@ to_tsquery('english', ?)`)
      bindings.push(term)
    }
  }
  return parts.map((p) => ` and (${p})`).join('')
}

/**
 * A page of `pageSize` tokens (one more to tell whether another follows)
 * after `cursor`: the rest of the cursor's holder count, then the next holder
 * counts; each part is a range of tokens_list_order (or its ascending twin).
 */
export async function listTokens (db: QueryDb, { filter, holdersAscending, cursor, pageSize = PAGE_SIZE }: { filter: TokenListFilter, holdersAscending: boolean, cursor?: TokenListCursor, pageSize?: number }): Promise<TokenRecord[]> {
  const limit = pageSize + 1
  const order = (prefix: string) => `order by ${prefix}holder_count ${holdersAscending ? 'asc' : 'desc'}, (${prefix}name is null), ${prefix}name, ${prefix}address`
  if (cursor === undefined) {
    const bindings: Knex.RawBinding[] = []
    const where = filterSql(filter, bindings)
    const { rows } = await db.knex.raw(`select ${TOKEN_COLUMNS} from tokens k where true ${where} ${order('k.')} limit ${limit}`, bindings)
    return rows.map(tokenFromRow)
  }
  const sameBindings: Knex.RawBinding[] = [cursor.holderCount]
  const rest = cursor.isNameNull
    ? 'k.name is null and k.address > ?'
    : '((k.name is null), k.name, k.address) > (false, ?, ?)'
  sameBindings.push(...(cursor.isNameNull ? [cursor.address] : [cursor.name ?? '', cursor.address]))
  const sameWhere = filterSql(filter, sameBindings)
  const lowerBindings: Knex.RawBinding[] = [cursor.holderCount]
  const lowerWhere = filterSql(filter, lowerBindings)
  const { rows } = await db.knex.raw(`select * from (
    (select ${TOKEN_COLUMNS}, 0 as part from tokens k where k.holder_count = ? and ${rest} ${sameWhere} ${order('k.')} limit ${limit})
    union all
    (select ${TOKEN_COLUMNS}, 1 as part from tokens k where k.holder_count ${holdersAscending ? '>' : '<'} ? ${lowerWhere} ${order('k.')} limit ${limit})
    ) k ${order('k.').replace('order by ', 'order by k.part, ')} limit ${limit}`, [...sameBindings, ...lowerBindings])
  return rows.map(tokenFromRow)
}

export async function findToken (db: QueryDb, address: Buffer): Promise<TokenRecord | undefined> {
  const { rows } = await db.knex.raw(`select ${TOKEN_COLUMNS} from tokens k where k.address = ?`, [address])
  return rows[0] === undefined ? undefined : tokenFromRow(rows[0])
}

/** Transfers as Blockscout counts them: one per log (an ERC-1155 batch is one transfer). */
export async function countTokenTransfers (db: QueryDb, address: Buffer): Promise<string> {
  const { rows } = await db.knex.raw('select count(*)::text as n from token_transfers where token_address = ? and batch_index = 0', [address])
  return rows[0].n
}

export type HolderRecord = { holder: Hex, holder_is_contract: boolean, token_id: string, value: string }
export type HolderCursor = { value: string, holder: Buffer, tokenId: string }

/** Holders by value, then address (both descending), then id for ERC-1155: the order of token_holdings_token_value. */
export async function listTokenHolders (db: QueryDb, { token, cursor }: { token: Buffer, cursor?: HolderCursor }): Promise<HolderRecord[]> {
  const after = cursor === undefined ? '' : 'and (h.value, h.holder, h.token_id) < (?::numeric, ?, ?::numeric)'
  const { rows } = await db.knex.raw(`
    select ${hexColumn('h.holder')} as holder, h.token_id::text, h.value::text, coalesce(a.contract_code is not null, false) as holder_is_contract
    from (select * from token_holdings h where h.token_address = ? and h.value > 0 ${after}
      order by h.value desc, h.holder desc, h.token_id desc limit ${PAGE_SIZE + 1}) h
    left join addresses a on a.hash = h.holder
    order by h.value desc, h.holder desc, h.token_id desc`,
  cursor === undefined ? [token] : [token, cursor.value, cursor.holder, cursor.tokenId])
  return rows
}
