// The chain's totals and recent pace, for Blockscout's /api/v2/stats: one
// statement. Totals and "today" (the UTC day) are the Stats API's daily sums
// (stats-sql.ts), so no table of the chain is counted; the pace is taken over
// the newest blocks.
import type { QueryDb } from './sql/query-db.ts'
import { newestBlocks, PACE_BLOCKS, sumDays, UTC_TODAY } from './stats-sql.ts'

export { PACE_BLOCKS }

/** Blocks whose transactions the gas price oracle looks at (Blockscout's default). */
export const GAS_ORACLE_BLOCKS = 200
/** The oracle's slow, average and fast percentiles of the priority fee paid (Blockscout's defaults). */
export const GAS_ORACLE_PERCENTILES = [0.35, 0.6, 0.9] as const

export type ChainStats = {
  totalBlocks: string
  totalTransactions: string
  totalGasUsed: string
  totalAddresses: string
  transactionsToday: string
  gasUsedToday: string
  /** Milliseconds between the newest blocks, on average; 0 with fewer than two. */
  averageBlockTimeMs: number
  /** Gas used over gas limit of the newest blocks, in per cent; 0 with none. */
  networkUtilizationPercentage: number
  /**
   * Wei, as decimal strings; null with no block or no base fee. With no
   * transaction in the oracle's blocks, Blockscout's answer: the next block's
   * base fee with no priority fee (GasPriceOracle on an empty fee list).
   */
  gasPrices: null | { baseFee: string, priorityFees: [slow: string, average: string, fast: string] }
}

const STATS_SQL = `
  with newest as (
    ${newestBlocks('number, timestamp, gas_used, gas_limit, base_fee_per_gas')}
  ), totals as (
    ${sumDays({ blocks: 'blocks', transactions: 'transactions', gas_used: 'gas_used', addresses: 'new_addresses' })}
  ), today as (
    ${sumDays({ transactions: 'transactions', gas_used: 'gas_used' }, `day = ${UTC_TODAY}`)}
  ), oracle as (
    select percentile_disc(array[${GAS_ORACLE_PERCENTILES.join(', ')}]::float8[]) within group (order by t.effective_gas_price - coalesce(b.base_fee_per_gas, 0)) as fees
    from transactions t join blocks b on b.number = t.block_number
    where t.block_number > (select coalesce(max(number), 0) from newest) - ${GAS_ORACLE_BLOCKS}
  )
  select totals.blocks::text as total_blocks, totals.transactions::text as total_transactions, totals.gas_used::text as total_gas_used,
    totals.addresses::text as total_addresses,
    today.transactions::text as transactions_today, today.gas_used::text as gas_used_today,
    (select case when count(*) < 2 then 0 else extract(epoch from max(timestamp) - min(timestamp)) * 1000 / (count(*) - 1) end from newest)::float8 as average_block_time_ms,
    (select case when coalesce(sum(gas_limit), 0) = 0 then 0 else sum(gas_used) * 100 / sum(gas_limit) end from newest)::float8 as network_utilization_percentage,
    (select coalesce(base_fee_per_gas, 0)::text from newest order by number desc limit 1) as base_fee,
    (select json_build_object('gas_used', gas_used::text, 'gas_limit', gas_limit::text, 'base_fee', base_fee_per_gas::text) from newest order by number desc limit 1) as newest_block,
    (select fees::text[] from oracle) as priority_fees
  from totals, today`

type StatsRow = {
  total_blocks: string
  total_transactions: string
  total_gas_used: string
  total_addresses: string
  transactions_today: string
  gas_used_today: string
  average_block_time_ms: number
  network_utilization_percentage: number
  base_fee: string | null
  priority_fees: string[] | null
  newest_block: { gas_used: string, gas_limit: string, base_fee: string | null } | null
}

/** EIP-1559 (London, as Geth 1.13 applies it on this chain): half the gas limit is the target, change at most 1/8. */
const ELASTICITY_MULTIPLIER = 2n
const BASE_FEE_CHANGE_DENOMINATOR = 8n

/** The base fee of the block after one with these numbers. */
export function nextBaseFee (gasUsed: bigint, gasLimit: bigint, baseFee: bigint): bigint {
  const target = gasLimit / ELASTICITY_MULTIPLIER
  if (target === 0n || gasUsed === target) return baseFee
  if (gasUsed > target) {
    const delta = baseFee * (gasUsed - target) / target / BASE_FEE_CHANGE_DENOMINATOR
    return baseFee + (delta > 1n ? delta : 1n)
  }
  const delta = baseFee * (target - gasUsed) / target / BASE_FEE_CHANGE_DENOMINATOR
  return baseFee - delta > 0n ? baseFee - delta : 0n
}

function gasPrices (r: StatsRow): ChainStats['gasPrices'] {
  const fees = r.priority_fees
  if (fees !== null && fees.every((f) => f !== null) && r.base_fee !== null) {
    return { baseFee: r.base_fee, priorityFees: [fees[0]!, fees[1]!, fees[2]!] }
  }
  const newest = r.newest_block
  if (newest === null || newest.base_fee === null) return null
  const next = nextBaseFee(BigInt(newest.gas_used), BigInt(newest.gas_limit), BigInt(newest.base_fee)).toString()
  return { baseFee: next, priorityFees: ['0', '0', '0'] }
}

export async function readChainStats (db: QueryDb): Promise<ChainStats> {
  const { rows: [row] } = await db.knex.raw<{ rows: StatsRow[] }>(STATS_SQL)
  const r = row!
  return {
    totalBlocks: r.total_blocks,
    totalTransactions: r.total_transactions,
    totalGasUsed: r.total_gas_used,
    totalAddresses: r.total_addresses,
    transactionsToday: r.transactions_today,
    gasUsedToday: r.gas_used_today,
    averageBlockTimeMs: r.average_block_time_ms,
    networkUtilizationPercentage: r.network_utilization_percentage,
    gasPrices: gasPrices(r)
  }
}
