// Top accounts (Blockscout's /addresses): addresses holding coin, by balance
// (highest first by default) or by transaction count, ties broken as
// Blockscout does (balance descending, then hash ascending). Each order has
// its own partial index on addresses (migration 3).
import type { Knex } from 'knex'
import type { Hex } from '../../rows.ts'
import { PAGE_SIZE } from '../sql/page-size.ts'
import { keysetPage, type KeyColumn } from '../sql/keyset.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type TopAddressSort = 'balance' | 'transactions_count'
export type TopAddressRecord = { hash: Hex, coin_balance: string, transaction_count: string, is_contract: boolean }
export type TopAddressCursor = { coinBalance: string, hash: Buffer, transactionCount: string }

function orderKeys (sort: TopAddressSort | undefined, descending: boolean): KeyColumn[] {
  const byBalance = [{ column: 'coin_balance', descending: true }, { column: 'hash', descending: false }]
  if (sort === 'transactions_count') return [{ column: 'transaction_count', descending }, ...byBalance]
  if (sort === 'balance') return [{ column: 'coin_balance', descending }, { column: 'hash', descending: false }]
  return byBalance
}

export async function listTopAddresses (db: QueryDb, { sort, descending, cursor }: { sort?: TopAddressSort, descending: boolean, cursor?: TopAddressCursor }): Promise<TopAddressRecord[]> {
  const keys = orderKeys(sort, descending)
  const values: Record<string, Knex.RawBinding> = cursor === undefined
    ? {}
    : { coin_balance: cursor.coinBalance, hash: cursor.hash, transaction_count: cursor.transactionCount }
  const { sql, bindings } = keysetPage({
    columns: 'hash, coin_balance, transaction_count, contract_code is not null as is_contract',
    from: 'addresses',
    where: 'coin_balance > 0',
    bindings: [],
    keys,
    cursor: cursor === undefined ? undefined : keys.map((k) => values[k.column]!),
    limit: PAGE_SIZE + 1
  })
  // The hash is read as bytes, which the keyset orders by and its index holds, and handed out as hex.
  const rows: Array<Omit<TopAddressRecord, 'hash'> & { hash: Buffer }> = (await db.knex.raw(sql, bindings)).rows
  return rows.map((r) => ({ ...r, hash: `0x${r.hash.toString('hex')}` }))
}
