// Transactions a day for Blockscout's transactions chart: the last 30 UTC days
// up to yesterday (today is not over), every day present, newest first.
// Read from the Stats API's daily sums (stats_daily, kept by core/stats/daily-stats.ts).
import type { QueryDb } from './sql/query-db.ts'

export const CHART_DAYS = 30

export type DailyTransactions = { date: string, transactionsCount: number }

export async function readDailyTransactions (db: QueryDb): Promise<DailyTransactions[]> {
  const { rows } = await db.knex.raw<{ rows: Array<{ date: string, transactions_count: string }> }>(`
    with days as (
      select generate_series(1, ${CHART_DAYS}) as ago
    ), bounds as (
      select (current_timestamp at time zone 'UTC')::date as today
    ), counted as (
      select d.day, d.transactions as n from stats_daily d, bounds
      where d.day >= bounds.today - ${CHART_DAYS} and d.day < bounds.today
    )
    select to_char(bounds.today - days.ago, 'YYYY-MM-DD') as date, coalesce(counted.n, 0)::text as transactions_count
    from days cross join bounds left join counted on counted.day = bounds.today - days.ago
    order by days.ago`)
  return rows.map((r) => ({ date: r.date, transactionsCount: Number(r.transactions_count) }))
}
