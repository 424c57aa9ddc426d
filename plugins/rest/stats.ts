// Blockscout's stats endpoints, which an explorer's home page polls: the
// chain's totals and gas prices, the daily transactions chart, the market
// chart (no price feed here: empty) and the last 24 hours' transactions.
// Each is read (app.queries.stats) at most once per refresh period per gateway
// (core/stats/refreshing.ts).
import type { ChainStats } from '../../core/stats/chain.ts'
import { createRefreshing } from '../../core/stats/refreshing.ts'
import { intString, nullable, query, validationError, type RestApp } from './schemas.ts'
import { msTimestamp } from '../present/present.ts'

/** The oldest totals served: a new block shows on the home page within this (docs/rest-api.md). */
const STATS_MAX_AGE_MS = 5000
/** Totals this old start the next read, served meanwhile: a page polling within the bound never waits. */
const STATS_REFRESH_MS = STATS_MAX_AGE_MS / 2
// Yesterday and before: it changes once a day, or while a backfill adds old blocks.
const CHART_REFRESH_MS = 60_000
const WEI_PER_GWEI = 1e9
/** Blockscout's request header for gas prices as objects with their parts. */
const UPDATED_GAS_ORACLE = 'updated-gas-oracle'

const gasPrice = { type: ['number', 'object', 'null'], additionalProperties: true } as const

const statsSchema = {
  tags: ['stats'],
  summary: 'The chain\'s totals, pace and gas prices',
  querystring: query(),
  response: {
    200: {
      type: 'object',
      properties: {
        total_blocks: intString,
        total_addresses: intString,
        total_transactions: intString,
        total_gas_used: intString,
        transactions_today: intString,
        gas_used_today: intString,
        average_block_time: { type: 'number', description: 'Milliseconds, over the newest 100 blocks' },
        coin_price: nullable('string'),
        secondary_coin_price: nullable('string'),
        coin_price_change_percentage: nullable('number'),
        coin_image: nullable('string'),
        secondary_coin_image: nullable('string'),
        market_cap: { type: 'string' },
        tvl: nullable('string'),
        network_utilization_percentage: { type: 'number' },
        static_gas_price: nullable('string'),
        gas_prices: {
          type: ['object', 'null'],
          description: 'Gwei, from the priority fees paid in the newest 200 blocks (35th, 60th and 90th percentiles) over the newest base fee; objects with their parts when the request has the header updated-gas-oracle: true',
          properties: { slow: gasPrice, average: gasPrice, fast: gasPrice }
        },
        gas_prices_update_in: { type: 'integer' },
        gas_price_updated_at: nullable('string')
      }
    },
    422: validationError
  }
} as const

const chartSchema = (summary: string, item: object, extra: Record<string, object> = {}) => ({
  tags: ['stats'],
  summary,
  querystring: query(),
  response: {
    200: { type: 'object', properties: { chart_data: { type: 'array', items: item }, ...extra } },
    422: validationError
  }
})

const transactionStatsSchema = {
  tags: ['transactions'],
  summary: 'Transactions and their fees over the last 24 hours',
  querystring: query(),
  response: {
    200: {
      type: 'object',
      properties: {
        transactions_count_24h: intString,
        pending_transactions_count: intString,
        transaction_fees_sum_24h: intString,
        transaction_fees_avg_24h: intString
      }
    },
    422: validationError
  }
} as const

/** Wei as gwei with two decimals: rounded to the nearest, or up (Blockscout's objects). */
const gwei = (wei: bigint, round: (x: number) => number = Math.round): number => round(Number(wei) / WEI_PER_GWEI * 100) / 100

function presentGasPrices (prices: ChainStats['gasPrices'], detailed: boolean) {
  if (prices === null) return null
  const baseFee = BigInt(prices.baseFee)
  const [slow, average, fast] = prices.priorityFees.map((fee) => {
    const priority = BigInt(fee)
    const wei = baseFee + priority
    if (!detailed) return gwei(wei)
    return {
      price: gwei(wei, Math.ceil),
      time: null,
      fiat_price: null,
      base_fee: gwei(baseFee),
      priority_fee: gwei(priority),
      priority_fee_wei: priority.toString(),
      wei: wei.toString()
    }
  })
  return { slow, average, fast }
}

export async function statsRoutes (app: RestApp): Promise<void> {
  // A read that fails in the background leaves the last value served: say so in the log.
  const every = (maxAgeMs: number, what: string, maxServedAgeMs?: number) =>
    ({ maxAgeMs, maxServedAgeMs, onError: (err: unknown) => app.log.warn({ err }, `reading ${what} failed; serving the last value`) })
  const stats = createRefreshing(async () => await app.queries.stats.readChainStats(), every(STATS_REFRESH_MS, 'the chain stats', STATS_MAX_AGE_MS))
  const chart = createRefreshing(async () => await app.queries.stats.readDailyTransactions(), every(CHART_REFRESH_MS, 'the transactions chart'))
  const transactionStats = createRefreshing(async () => {
    const [counts, pool] = await Promise.all([
      app.queries.stats.readTransactionStats(),
      app.geth.rpc.call<{ pending: string }>('txpool_status')
    ])
    return { ...counts, pending: BigInt(pool.pending).toString() }
  }, every(STATS_REFRESH_MS, 'the transaction stats', STATS_MAX_AGE_MS))

  app.get('/stats', { schema: statsSchema }, async (request) => {
    const { value: s, computedAtMs } = await stats.get()
    return {
      total_blocks: s.totalBlocks,
      total_addresses: s.totalAddresses,
      total_transactions: s.totalTransactions,
      total_gas_used: s.totalGasUsed,
      transactions_today: s.transactionsToday,
      gas_used_today: s.gasUsedToday,
      average_block_time: s.averageBlockTimeMs,
      coin_price: null,
      secondary_coin_price: null,
      coin_price_change_percentage: null,
      coin_image: null,
      secondary_coin_image: null,
      market_cap: '0',
      tvl: null,
      network_utilization_percentage: s.networkUtilizationPercentage,
      static_gas_price: null,
      gas_prices: presentGasPrices(s.gasPrices, request.headers[UPDATED_GAS_ORACLE] === 'true'),
      gas_prices_update_in: stats.dueInMs(),
      gas_price_updated_at: s.gasPrices === null ? null : msTimestamp(computedAtMs)
    }
  })

  app.get('/stats/charts/transactions', {
    schema: chartSchema('Transactions a day over the last 30 days up to yesterday (UTC), newest first',
      { type: 'object', properties: { date: { type: 'string' }, transactions_count: { type: 'integer' } } })
  }, async () => {
    const { value } = await chart.get()
    return { chart_data: value.map((d) => ({ date: d.date, transactions_count: d.transactionsCount })) }
  })

  // No exchange feed: no prices, and an available supply Blockscout gives as 0 without one.
  app.get('/stats/charts/market', {
    schema: chartSchema('Daily closing price and market cap: empty, as there is no price feed', { type: 'object' }, { available_supply: { type: 'string' } })
  }, async () => ({ chart_data: [], available_supply: '0' }))

  app.get('/transactions/stats', { schema: transactionStatsSchema }, async () => {
    const { value: s } = await transactionStats.get()
    return {
      transactions_count_24h: s.count24h,
      pending_transactions_count: s.pending,
      transaction_fees_sum_24h: s.feesSum24h,
      transaction_fees_avg_24h: s.feesAverage24h
    }
  })
}
