// Transactions a day for Blockscout's transactions chart: the last 30 UTC days
// up to yesterday (today is not over), every day present, newest first.
// Summed from the blocks' own counts over the block timestamp index.
import type { Knex } from 'knex'

export const CHART_DAYS = 30

export type DailyTransactions = { date: string, transactionsCount: number }

export async function readDailyTransactions (db: Knex): Promise<DailyTransactions[]> {
  const { rows } = await db.raw<{ rows: Array<{ date: string, transactions_count: string }> }>(`
    with days as (
      select generate_series(1, ${CHART_DAYS}) as ago
    ), bounds as (
      select (current_timestamp at time zone 'UTC')::date as today
    ), counted as (
      select (b.timestamp at time zone 'UTC')::date as day, sum(b.transaction_count) as n
      from blocks b, bounds
      where b.timestamp >= (bounds.today - ${CHART_DAYS})::timestamp at time zone 'UTC' and b.timestamp < bounds.today::timestamp at time zone 'UTC'
      group by 1
    )
    select to_char(bounds.today - days.ago, 'YYYY-MM-DD') as date, coalesce(counted.n, 0)::text as transactions_count
    from days cross join bounds left join counted on counted.day = bounds.today - days.ago
    order by days.ago`)
  return rows.map((r) => ({ date: r.date, transactionsCount: Number(r.transactions_count) }))
}
