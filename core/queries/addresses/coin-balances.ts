// Coin balance history of an address: one row per block that changed its
// balance, with the change, newest first, read backwards along the
// coin_balances primary key (address, block_number).
import type { CoinBalanceRow, Hex } from '../../rows.ts'
import { epochColumn, hexColumn } from '../sql/columns.ts'
import { PAGE_SIZE } from '../sql/page-size.ts'
import type { QueryDb } from '../sql/query-db.ts'

/** A balance change: the balance row (less its address) with the change, its block's time and the transaction that made it. */
export type CoinBalanceRecord = Omit<CoinBalanceRow, 'address'> & {
  delta: string
  /** Seconds since the epoch. */
  timestamp: number
  transaction_hash: Hex | null
}

/** Blockscout's COIN_BALANCE_HISTORY_DAYS default: the by-day history covers this many days. */
export const COIN_BALANCE_HISTORY_DAYS = 10

/** The transaction of balance row `c`'s change (see listCoinBalanceHistory). */
const CHANGE_TRANSACTION = `coalesce(
  (select t.hash from transactions t where t.block_number = c.block_number and (t."from" = c.address or t."to" = c.address)
    and (t.value > 0 or (t.effective_gas_price > 0 and t.gas_used > 0)) order by t.transaction_index limit 1),
  (select i.transaction_hash from internal_transactions i where i.block_number = c.block_number
    and (i."from" = c.address or i."to" = c.address) and i.value > 0 order by i.transaction_index, i.trace_index limit 1)
)`

/**
 * Rows below `before`. Blockscout leaves out blocks that touched the address
 * without changing its balance; a row's delta is against the row before it.
 * The transaction is the block's first one from or to the address that moved
 * value or paid gas, else the first internal transaction that moved value.
 */
export async function listCoinBalanceHistory (db: QueryDb, { address, before }: { address: Buffer, before?: number }): Promise<CoinBalanceRecord[]> {
  const { rows } = await db.knex.raw(`
    select c.block_number::int as block_number, c.value::text, (c.value - coalesce(p.value, 0))::text as delta, ${epochColumn('b.timestamp')} as timestamp,
      ${hexColumn(CHANGE_TRANSACTION)} as transaction_hash
    from coin_balances c
    left join lateral (select value from coin_balances p where p.address = c.address and p.block_number < c.block_number
      order by p.block_number desc limit 1) p on true
    join blocks b on b.number = c.block_number
    where c.address = ? ${before === undefined ? '' : 'and c.block_number < ?'} and c.value <> coalesce(p.value, 0)
    order by c.block_number desc limit ${PAGE_SIZE + 1}`, before === undefined ? [address] : [address, before])
  return rows
}

export type DailyBalance = { date: string, value: string }

/**
 * The highest balance of each UTC day over the last COIN_BALANCE_HISTORY_DAYS
 * days, oldest first, as Blockscout reports it: the last day carries the
 * latest balance and today is added with it when the address did not move today.
 */
export async function listDailyBalances (db: QueryDb, { address, nowMs = Date.now() }: { address: Buffer, nowMs?: number }): Promise<DailyBalance[]> {
  const { rows } = await db.knex.raw(`
    select to_char(date_trunc('day', b.timestamp at time zone 'UTC'), 'YYYY-MM-DD') as date, max(c.value)::text as value
    from coin_balances c join blocks b on b.number = c.block_number
    where c.address = ? and c.block_number >= coalesce((select number from blocks
      where timestamp >= date_trunc('day', to_timestamp(?::float8 / 1000) at time zone 'UTC' - interval '${COIN_BALANCE_HISTORY_DAYS} days') at time zone 'UTC'
      order by timestamp limit 1), 9223372036854775807)
    group by 1 order by 1`, [address, nowMs])
  if (rows.length === 0) return []
  const { rows: latest } = await db.knex.raw(`
    select to_char(b.timestamp at time zone 'UTC', 'YYYY-MM-DD') as date, c.value::text as value
    from coin_balances c join blocks b on b.number = c.block_number
    where c.address = ? order by c.block_number desc limit 1`, [address])
  const days: DailyBalance[] = [...rows.slice(0, -1), latest[0]]
  const today = new Date(nowMs).toISOString().slice(0, 10)
  if (!days.some((d) => d.date === today)) days.push({ date: today, value: days[days.length - 1]!.value })
  return days
}
