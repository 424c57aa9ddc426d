// The Stats API's line charts, read from the daily sums (stats_daily) and
// rolled up to weeks, months and years at read time: a year of days is 365
// rows. Periods with no row are filled (zero, or the running total), and the
// period still under way is approximate. The catalogue (createLineCharts)
// names the charts in the coin's symbol; what a chart reads does not depend on it.
import type { QueryDb } from './sql/query-db.ts'

export const RESOLUTIONS = ['DAY', 'WEEK', 'MONTH', 'YEAR'] as const
export type Resolution = typeof RESOLUTIONS[number]
/** The stats service's STATS__LIMITS__REQUESTED_POINTS_LIMIT default. */
export const REQUESTED_POINTS_LIMIT = 182_500

/** How a period's value comes from its days: sums, a running total, a quotient of sums, or distinct senders. */
type ChartValue =
  | { kind: 'sum', expr: string }
  | { kind: 'growth', expr: string }
  | { kind: 'ratio', num: string, den: string }
  | { kind: 'active' }

export type LineChartInfo = { id: string, title: string, description: string, units: string | null, resolutions: string[] }
/** Where a chart's days come from: the daily sums, or the verified contracts by the day of their verification. */
type ChartSource = 'daily' | 'verified'
type ChartSpec = Omit<LineChartInfo, 'resolutions'> & { section: string, value: ChartValue, source: ChartSource }
export type LineChartSection = { id: string, title: string, charts: LineChartInfo[] }
export type Point = { date: string, date_to: string, value: string, is_approximate?: true }

/** The coin's symbol in a chart's texts. */
const COIN = '{coin}'
const WEI_PER_COIN = '1e18'
const WEI_PER_GWEI = '1e9'

const c = (section: string, id: string, title: string, description: string, units: string | null, value: ChartValue, source: ChartSource = 'daily'): ChartSpec =>
  ({ section, id, title, description, units, value, source })

/** Texts hold COIN where the coin's symbol goes (createLineCharts puts it in). */
const CHARTS: ChartSpec[] = [
  c('accounts', 'activeAccounts', 'Active accounts', 'Active accounts number per period', null, { kind: 'active' }),
  c('accounts', 'accountsGrowth', 'Accounts growth', 'Cumulative accounts number per period', null, { kind: 'growth', expr: 'new_accounts' }),
  c('accounts', 'newAccounts', 'New accounts', 'New accounts number per day', null, { kind: 'sum', expr: 'new_accounts' }),
  c('transactions', 'newTxns', 'New transactions', 'New transactions number', null, { kind: 'sum', expr: 'transactions' }),
  c('transactions', 'txnsGrowth', 'Transactions growth', 'Cumulative transactions number', null, { kind: 'growth', expr: 'transactions' }),
  c('transactions', 'txnsFee', 'Transactions fees', 'Amount of tokens paid as fees', COIN, { kind: 'sum', expr: `fees / ${WEI_PER_COIN}` }),
  c('transactions', 'averageTxnFee', 'Average transaction fee', `The average amount in ${COIN} spent per transaction`, COIN, { kind: 'ratio', num: `fees / ${WEI_PER_COIN}`, den: 'transactions' }),
  c('transactions', 'txnsSuccessRate', 'Transactions success rate', 'Successful transactions rate per day', null, { kind: 'ratio', num: 'successful_transactions', den: 'transactions' }),
  c('blocks', 'newBlocks', 'New blocks', 'New blocks number', null, { kind: 'sum', expr: 'blocks' }),
  c('blocks', 'averageBlockSize', 'Average block size', 'Average size of blocks in bytes', 'Bytes', { kind: 'ratio', num: 'block_size', den: 'blocks' }),
  c('blocks', 'averageBlockRewards', 'Average block rewards', `Average amount of distributed reward in ${COIN}s per day`, COIN, { kind: 'ratio', num: `(fees - burnt_fees) / ${WEI_PER_COIN}`, den: 'blocks' }),
  c('tokens', 'newNativeCoinTransfers', `New ${COIN} transfers`, `New ${COIN} transfers number per period`, null, { kind: 'sum', expr: 'native_coin_transfers' }),
  c('tokens', 'nativeCoinHoldersGrowth', `${COIN} holders growth`, `Cumulative ${COIN} holders number for the period`, null, { kind: 'growth', expr: 'native_coin_holders' }),
  c('tokens', 'newNativeCoinHolders', `New ${COIN} holders`, `New ${COIN} holders number (holders gained less holders lost)`, null, { kind: 'sum', expr: 'native_coin_holders' }),
  // The zero address's coins are burnt, not supplied (the service leaves it out too).
  c('tokens', 'nativeCoinSupply', `${COIN} circulating supply`, `${COIN} circulating supply at the end of each period`, COIN, { kind: 'growth', expr: `native_coin_supply / ${WEI_PER_COIN}` }),
  c('gas', 'averageGasLimit', 'Average gas limit', 'Average gas limit per block for the period', null, { kind: 'ratio', num: 'gas_limit', den: 'blocks' }),
  c('gas', 'gasUsedGrowth', 'Gas used growth', 'Cumulative gas used for the period', null, { kind: 'growth', expr: 'gas_used' }),
  c('gas', 'averageGasUsed', 'Average gas used', 'Average gas used per block for the period', null, { kind: 'ratio', num: 'gas_used', den: 'blocks' }),
  c('gas', 'averageGasPrice', 'Average gas price', 'Average gas price for the period (Gwei)', 'Gwei', { kind: 'ratio', num: `gas_price_sum / ${WEI_PER_GWEI}`, den: 'transactions' }),
  c('gas', 'networkUtilization', 'Network utilization', 'Average gas used over gas limit of blocks', '%', { kind: 'ratio', num: 'gas_used', den: 'gas_limit' }),
  c('contracts', 'newContracts', 'New contracts', 'New contracts number for the period', null, { kind: 'sum', expr: 'new_contracts' }),
  c('contracts', 'contractsGrowth', 'Contracts growth', 'Cumulative number of contracts for the period', null, { kind: 'growth', expr: 'new_contracts' }),
  c('contracts', 'newVerifiedContracts', 'New verified contracts', 'New verified contracts number for the period', null, { kind: 'sum', expr: 'verified' }, 'verified'),
  c('contracts', 'verifiedContractsGrowth', 'Verified contracts growth', 'Cumulative number verified contracts for the period', null, { kind: 'growth', expr: 'verified' }, 'verified')
]
const CHARTS_BY_ID = new Map(CHARTS.map((s) => [s.id, s]))

const SECTION_TITLES: Record<string, string> = { accounts: 'Accounts', transactions: 'Transactions', blocks: 'Blocks', tokens: 'Tokens', gas: 'Gas', contracts: 'Contracts' }

export type LineCharts = {
  sections (): LineChartSection[]
  find (id: string): LineChartInfo | undefined
}

/** The range of points read: from..to inclusive (YYYY-MM-DD; the first and last days indexed when absent, timestamp 0's day left out). */
export type LineRange = { from?: string, to?: string, resolution: Resolution }

export class PointsLimitError extends Error {
  constructor (readonly points: number) { super(`exceeded limit on requested data points (~${points}); choose smaller time interval.`) }
}

/**
 * The day of timestamp 0, where a genesis block without a time lands (Geth's
 * default genesis, this gateway's own): charts start at the chain's first
 * real day, as the stats service's leave timestamp 0 out, not decades of
 * empty days before it (20,786 daily points). The day's sums still count in
 * the running totals, as days before a range do; a range asked for it shows it.
 */
const EPOCH_DAY = "'1970-01-01'::date"

const INTERVAL: Record<Resolution, string> = { DAY: '1 day', WEEK: '1 week', MONTH: '1 month', YEAR: '1 year' }
const DAYS_PER: Record<Resolution, number> = { DAY: 1, WEEK: 7, MONTH: 30.4, YEAR: 365.25 }

/**
 * The days of a source. Verified contracts are few (verifications, not chain
 * rows): counted by day when read, and verified again (a partial match made
 * full), a contract counts on its last verification's day.
 */
const SOURCE_DAYS: Record<ChartSource, string> = {
  daily: 'stats_daily',
  verified: "(select (verified_at at time zone 'UTC')::date as day, count(*) as verified from verified_contracts group by 1)"
}

function periodValue (value: ChartValue, resolution: Resolution, source: string): string {
  switch (value.kind) {
    case 'sum': return `coalesce(sum(${value.expr}), 0)`
    case 'growth': return `coalesce(sum(sum(${value.expr})) over (order by periods.p), 0) + (select coalesce(sum(${value.expr}), 0) from ${source} d where day < first_period)`
    case 'ratio': return `coalesce(round(sum(${value.num}) / nullif(sum(${value.den}), 0), 18), 0)`
    case 'active': return resolution === 'DAY'
      ? 'coalesce(sum(active_accounts), 0)'
      : `(select count(distinct s.address) from stats_day_senders s where s.day >= periods.p and s.day < (periods.p + interval '${INTERVAL[resolution]}')::date)`
  }
}

export function createLineCharts (coinSymbol: string): LineCharts {
  const named = (text: string): string => text.replaceAll(COIN, coinSymbol)
  const info = ({ id, title, description, units }: ChartSpec): LineChartInfo =>
    ({ id, title: named(title), description: named(description), units: units === null ? null : named(units), resolutions: [...RESOLUTIONS] })
  // Each made once: find() is on every chart request's path.
  const infos = new Map(CHARTS.map((spec) => [spec.id, Object.freeze(info(spec))]))
  return {
    sections: () => Object.entries(SECTION_TITLES).map(([id, title]) => ({ id, title, charts: CHARTS.filter((s) => s.section === id).map(info) }))
      .filter((s) => s.charts.length > 0),
    find: (id) => infos.get(id)
  }
}

/** The points of chart `id` (one createLineCharts finds) over `range`; PointsLimitError past the service's limit. */
export async function readLinePoints (db: QueryDb, { id, from, to, resolution }: LineRange & { id: string }): Promise<Point[]> {
  const spec = CHARTS_BY_ID.get(id)
  if (spec === undefined) throw new Error(`no line chart ${id}`)
  const { rows: [bounds] } = await db.knex.raw<{ rows: Array<{ first: string | null, last: string | null }> }>(
    `select to_char(min(day) filter (where day <> ${EPOCH_DAY}), 'YYYY-MM-DD') as first, to_char(max(day), 'YYYY-MM-DD') as last from stats_daily`)
  const first = from ?? bounds!.first
  const last = to ?? bounds!.last
  if (first === null || last === null || first > last) return []
  const points = Math.ceil((Date.parse(last) - Date.parse(first)) / 86_400_000 / DAYS_PER[resolution]) + 1
  if (points > REQUESTED_POINTS_LIMIT) throw new PointsLimitError(points)
  const step = `interval '${INTERVAL[resolution]}'`
  const unit = resolution.toLowerCase()
  const { rows } = await db.knex.raw<{ rows: Array<{ date: string, date_to: string, value: string, approximate: boolean }> }>(`
    with periods as (
      select p::date as p from generate_series(date_trunc('${unit}', ?::timestamp), date_trunc('${unit}', ?::timestamp), ${step}) p
    ), bounds as (select min(p) as first_period from periods)
    select to_char(periods.p, 'YYYY-MM-DD') as date, to_char((periods.p + ${step} - interval '1 day')::date, 'YYYY-MM-DD') as date_to,
      trim_scale(${periodValue(spec.value, resolution, SOURCE_DAYS[spec.source])})::text as value,
      (periods.p + ${step})::date > (now() at time zone 'UTC')::date as approximate
    from periods cross join bounds
    left join ${SOURCE_DAYS[spec.source]} d on d.day >= periods.p and d.day < (periods.p + ${step})::date
    group by periods.p, first_period order by periods.p`, [first, last])
  return rows.map((r) => r.approximate ? { date: r.date, date_to: r.date_to, value: r.value, is_approximate: true } : { date: r.date, date_to: r.date_to, value: r.value })
}
