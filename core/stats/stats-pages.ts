// The Stats API's pages: counters and a chart gathered as the front end's
// pages show them (the service's MainPageStats, TransactionsPageStats,
// ContractsPageStats), and its update status.
import type { Knex } from 'knex'
import { readCounters, type Counter } from './counters.ts'
import type { LineChartInfo, LineCharts, Point } from './line-charts.ts'

/** Daily points the main page shows, the newest complete days (the service's newTxnsWindow). */
export const MAIN_PAGE_DAYS = 30
const DAY_MS = 86_400_000

export type LineChart = { chart: Point[], info: LineChartInfo }
type Counters = Map<string, Counter>

const byId = (counters: Counter[]): Counters => new Map(counters.map((c) => [c.id, c]))
const pick = (counters: Counters, id: string): Counter | null => counters.get(id) ?? null

export async function readMainPage (db: Knex, charts: LineCharts, coin: string): Promise<Record<string, Counter | LineChart | null>> {
  const counters = byId(await readCounters(db, coin))
  const today = Date.now() - Date.now() % DAY_MS
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const chart = await charts.read(db, 'newTxns', { from: day(today - MAIN_PAGE_DAYS * DAY_MS), to: day(today - DAY_MS), resolution: 'DAY' })
  return {
    average_block_time: pick(counters, 'averageBlockTime'),
    total_addresses: pick(counters, 'totalAddresses'),
    total_blocks: pick(counters, 'totalBlocks'),
    total_transactions: pick(counters, 'totalTxns'),
    yesterday_transactions: pick(counters, 'yesterdayTxns'),
    total_operational_transactions: null,
    yesterday_operational_transactions: null,
    op_stack_total_operational_transactions: null,
    op_stack_yesterday_operational_transactions: null,
    daily_new_transactions: { chart, info: { ...charts.find('newTxns')!, id: 'newTxnsWindow', resolutions: ['DAY'] } },
    daily_new_operational_transactions: null,
    op_stack_daily_new_operational_transactions: null
  }
}

export async function readTransactionsPage (db: Knex, coin: string): Promise<Record<string, Counter | null>> {
  const counters = byId(await readCounters(db, coin))
  return {
    pending_transactions_30m: pick(counters, 'pendingTxns30m'),
    transactions_fee_24h: pick(counters, 'txnsFee24h'),
    average_transactions_fee_24h: pick(counters, 'averageTxnFee24h'),
    transactions_24h: pick(counters, 'newTxns24h'),
    operational_transactions_24h: null,
    op_stack_operational_transactions_24h: null,
    total_zetachain_cross_chain_txns: null,
    new_zetachain_cross_chain_txns_24h: null,
    pending_zetachain_cross_chain_txns: null
  }
}

export async function readContractsPage (db: Knex, coin: string): Promise<Record<string, Counter | null>> {
  const counters = byId(await readCounters(db, coin))
  return {
    total_contracts: pick(counters, 'totalContracts'),
    new_contracts_24h: pick(counters, 'newContracts24h'),
    total_verified_contracts: pick(counters, 'totalVerifiedContracts'),
    new_verified_contracts_24h: pick(counters, 'newVerifiedContracts24h')
  }
}

/** Every figure is kept as blocks are stored, so each group is always past its initial update. */
export const UPDATE_STATUS = Object.freeze({
  all_status: 'COMPLETED_INITIAL_UPDATE',
  independent_status: 'COMPLETED_INITIAL_UPDATE',
  blocks_dependent_status: 'COMPLETED_INITIAL_UPDATE',
  internal_transactions_dependent_status: 'COMPLETED_INITIAL_UPDATE',
  user_ops_dependent_status: 'COMPLETED_INITIAL_UPDATE',
  zetachain_cctx_dependent_status: 'COMPLETED_INITIAL_UPDATE'
})
