// What an address holds, as Blockscout lists it: one row per ERC-20 or ERC-721
// token (the ERC-721 value is the number of ids) and per ERC-1155 id, read
// from token_holdings (migration 3) in the order of token_holdings_holder_value.
import type { Knex } from 'knex'
import { PAGE_SIZE } from '../sql/page-size.ts'
import { tokenFromJson, tokenJoin, type TokenJson, type TokenRecord } from '../tokens/tokens.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type HoldingRecord = {
  id: string
  token_id: string
  value: string
  token: TokenRecord
}

export type HoldingCursor = { value: string, id: string }

const COLUMNS = 'h.id::text, h.token_id::text, h.value::text, row_to_json(t) as token'
const TOKEN_JOIN = tokenJoin('h.token_address')

const normalise = (row: Omit<HoldingRecord, 'token'> & { token: TokenJson }): HoldingRecord => ({ ...row, token: tokenFromJson(row.token) })

/** Everything the address holds, highest value first (Blockscout's token-balances is not paged). */
export async function listTokenBalances (db: QueryDb, holder: Buffer): Promise<HoldingRecord[]> {
  const { rows } = await db.knex.raw(`select ${COLUMNS} from token_holdings h ${TOKEN_JOIN}
    where h.holder = ? and h.value > 0 order by h.value desc, h.id desc`, [holder])
  return rows.map(normalise)
}

/** A page of holdings after `cursor`, optionally of some token types only. */
export async function listHoldings (db: QueryDb, { holder, types, cursor }: { holder: Buffer, types?: string[], cursor?: HoldingCursor }): Promise<HoldingRecord[]> {
  const bindings: Knex.RawBinding[] = [holder]
  let where = 'h.holder = ? and h.value > 0'
  if (cursor !== undefined) {
    where += ' and (h.value, h.id) < (?::numeric, ?::bigint)'
    bindings.push(cursor.value, cursor.id)
  }
  if (types !== undefined && types.length > 0) {
    where += ` and h.token_type in (${types.map(() => '?').join(', ')})`
    bindings.push(...types)
  }
  const { rows } = await db.knex.raw(`select ${COLUMNS} from (
      select * from token_holdings h where ${where} order by h.value desc, h.id desc limit ${PAGE_SIZE + 1}
    ) h ${TOKEN_JOIN} order by h.value desc, h.id desc`, bindings)
  return rows.map(normalise)
}
