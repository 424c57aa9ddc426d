// The Stats API's pages: counters and a chart gathered as the front end's
// pages show them (the service's MainPageStats, TransactionsPageStats,
// ContractsPageStats).
import type { QueryDb } from './sql/query-db.ts'
import { readCounters, type Counter } from './stats-counters.ts'
import { createLineCharts, readLinePoints, type LineChartInfo, type Point } from './stats-line-charts.ts'

/** Daily points the main page shows, the newest complete days (the service's newTxnsWindow). */
export const MAIN_PAGE_DAYS = 30
const DAY_MS = 86_400_000

export type LineChart = { chart: Point[], info: LineChartInfo }

/** A page's counter fields and the counter id each shows; null: a figure of another kind of chain (OP Stack, Zetachain), always null here. */
type CounterLayout = Record<string, string | null>

const MAIN_PAGE_COUNTERS: CounterLayout = {
  average_block_time: 'averageBlockTime',
  total_addresses: 'totalAddresses',
  total_blocks: 'totalBlocks',
  total_transactions: 'totalTxns',
  yesterday_transactions: 'yesterdayTxns',
  total_operational_transactions: null,
  yesterday_operational_transactions: null,
  op_stack_total_operational_transactions: null,
  op_stack_yesterday_operational_transactions: null
}

const TRANSACTIONS_PAGE_COUNTERS: CounterLayout = {
  pending_transactions_30m: 'pendingTxns30m',
  transactions_fee_24h: 'txnsFee24h',
  average_transactions_fee_24h: 'averageTxnFee24h',
  transactions_24h: 'newTxns24h',
  operational_transactions_24h: null,
  op_stack_operational_transactions_24h: null,
  total_zetachain_cross_chain_txns: null,
  new_zetachain_cross_chain_txns_24h: null,
  pending_zetachain_cross_chain_txns: null
}

const CONTRACTS_PAGE_COUNTERS: CounterLayout = {
  total_contracts: 'totalContracts',
  new_contracts_24h: 'newContracts24h',
  total_verified_contracts: 'totalVerifiedContracts',
  new_verified_contracts_24h: 'newVerifiedContracts24h'
}

async function readCounterFields (db: QueryDb, coin: string, layout: CounterLayout): Promise<Record<string, Counter | null>> {
  const counters = new Map((await readCounters(db, coin)).map((c) => [c.id, c]))
  return Object.fromEntries(Object.entries(layout).map(([field, id]) => [field, id === null ? null : counters.get(id) ?? null]))
}

export async function readMainPage (db: QueryDb, coin: string): Promise<Record<string, Counter | LineChart | null>> {
  const today = Date.now() - Date.now() % DAY_MS
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const counters = await readCounterFields(db, coin, MAIN_PAGE_COUNTERS)
  const chart = await readLinePoints(db, { id: 'newTxns', from: day(today - MAIN_PAGE_DAYS * DAY_MS), to: day(today - DAY_MS), resolution: 'DAY' })
  return {
    ...counters,
    daily_new_transactions: { chart, info: { ...createLineCharts(coin).find('newTxns')!, id: 'newTxnsWindow', resolutions: ['DAY'] } },
    daily_new_operational_transactions: null,
    op_stack_daily_new_operational_transactions: null
  }
}

export const readTransactionsPage = async (db: QueryDb, coin: string): Promise<Record<string, Counter | null>> =>
  await readCounterFields(db, coin, TRANSACTIONS_PAGE_COUNTERS)

export const readContractsPage = async (db: QueryDb, coin: string): Promise<Record<string, Counter | null>> =>
  await readCounterFields(db, coin, CONTRACTS_PAGE_COUNTERS)
