// The Stats API's counters: totals summed from the daily rows (stats_daily,
// one row a day), the pace from the newest blocks, and the rolling windows
// (24 hours) from the blocks the window holds, found on the timestamp index.
import { formatUnits } from 'ethers'
import type { QueryDb } from './sql/query-db.ts'
import { newestBlocks, sumDays, UTC_TODAY, WINDOW_BLOCKS } from './stats-sql.ts'

export type Counter = { id: string, value: string, title: string, units: string | null, description: string }

/** The totals, by name, and the stats_daily column each sums. */
const TOTALS = {
  blocks: 'blocks',
  transactions: 'transactions',
  successful: 'successful_transactions',
  accounts: 'new_accounts',
  native_transfers: 'native_coin_transfers',
  tokens: 'new_tokens',
  contracts: 'new_contracts',
  addresses: 'new_addresses',
  holders: 'native_coin_holders'
}

const COUNTERS_SQL = `
  with totals as (
    ${sumDays(TOTALS)}
  ), verified as (
    -- Verifications, not chain rows: few, counted when read.
    select count(*) as total, count(*) filter (where verified_at >= now() - interval '24 hours') as last_24h,
      count(*) filter (where (verified_at at time zone 'UTC')::date = ${UTC_TODAY}) as today
    from verified_contracts
  ), newest as (
    ${newestBlocks('timestamp')}
  ), window_blocks as (
    ${WINDOW_BLOCKS}
  ), window_transactions as (
    select count(t.hash) as count, coalesce(sum(t.gas_used * t.effective_gas_price), 0) as fees,
      count(*) filter (where t.created_contract is not null and t.status = 1) as contracts
    from window_blocks w join transactions t on t.block_number between w.first and w.last
  ), window_internal as (
    select count(*) as contracts from window_blocks w join internal_transactions i on i.block_number between w.first and w.last
    where i.created_contract is not null and cardinality(i.trace_address) > 0
  )
  select totals.blocks::text as total_blocks, totals.transactions::text as total_transactions, totals.successful::text as completed_transactions,
    totals.accounts::text as total_accounts, totals.native_transfers::text as native_transfers, totals.tokens::text as total_tokens,
    totals.contracts::text as total_contracts, totals.addresses::text as total_addresses, totals.holders::text as native_coin_holders,
    verified.total::text as total_verified, verified.last_24h::text as verified_24h, verified.today::text as today_verified,
    (select case when count(*) < 2 then 0 else extract(epoch from max(timestamp) - min(timestamp)) / (count(*) - 1) end from newest)::float8 as average_block_time_s,
    (select coalesce(new_contracts, 0) from stats_daily where day = ${UTC_TODAY})::text as today_contracts,
    (select coalesce(transactions, 0) from stats_daily where day = ${UTC_TODAY} - 1)::text as yesterday_transactions,
    w.count::text as transactions_24h, w.fees::text as fees_24h, (w.contracts + i.contracts)::text as contracts_24h
  from totals, verified, window_transactions w, window_internal i`

type CountersRow = Record<'total_blocks' | 'total_transactions' | 'completed_transactions' | 'total_accounts' | 'native_transfers' | 'total_tokens' |
'total_contracts' | 'total_addresses' | 'native_coin_holders' | 'total_verified' | 'verified_24h' | 'today_verified' | 'today_contracts' | 'yesterday_transactions' | 'transactions_24h' | 'fees_24h' | 'contracts_24h', string | null> & { average_block_time_s: number }

/** Wei as the coin, without trailing zeros ("0.000021"; "0" for none). */
export const formatCoin = (wei: bigint): string => formatUnits(wei, 18).replace(/\.0$/, '')

/** The counters in the service's layout order, keyed by id. */
export async function readCounters (db: QueryDb, coin: string): Promise<Counter[]> {
  const { rows: [r] } = await db.knex.raw<{ rows: CountersRow[] }>(COUNTERS_SQL)
  const row = r!
  const v = (key: keyof CountersRow): string => String(row[key] ?? '0')
  const count24h = BigInt(v('transactions_24h'))
  const fees24h = BigInt(v('fees_24h'))
  const c = (id: string, value: string, title: string, description: string, units: string | null = null): Counter => ({ id, value, title, units, description })
  return [
    c('averageBlockTime', String(row.average_block_time_s), 'Average block time', 'Average time taken in seconds for a block to be included in the blockchain', 's'),
    c('completedTxns', v('completed_transactions'), 'Completed txns', 'Number of transactions with success status'),
    c('lastNewContracts', v('today_contracts'), 'Number of deployed contracts today', 'Number of deployed contracts today (UTC)'),
    c('lastNewVerifiedContracts', v('today_verified'), 'Number of verified contracts today', 'Number of contracts verified today (UTC)'),
    c('totalAccounts', v('total_accounts'), 'Total accounts', 'Number of externally owned accounts that sent at least one transaction'),
    c('totalAddresses', v('total_addresses'), 'Total addresses', 'Number of addresses that participated in the blockchain'),
    c('totalBlocks', v('total_blocks'), 'Total blocks', 'Number of blocks over all time'),
    c('totalContracts', v('total_contracts'), 'Total contracts', 'Number of contracts'),
    c('totalNativeCoinHolders', v('native_coin_holders'), `Total ${coin} holders`, `Number of addresses holding ${coin}`),
    c('totalNativeCoinTransfers', v('native_transfers'), `Total ${coin} transfers`, `Number of transactions with the transfer of the ${coin}`),
    c('totalTokens', v('total_tokens'), 'Total tokens', 'Number of all token contracts'),
    c('totalTxns', v('total_transactions'), 'Total txns', 'All transactions including pending, dropped, replaced, failed transactions'),
    c('totalVerifiedContracts', v('total_verified'), 'Total verified contracts', 'Number of verified contracts'),
    c('newContracts24h', v('contracts_24h'), 'Contracts indexed within last 24h', 'Number of contracts deployed within the last 24 hours'),
    c('newVerifiedContracts24h', v('verified_24h'), 'Verified contracts indexed within last 24h', 'Number of contracts verified within the last 24 hours'),
    c('newTxns24h', count24h.toString(), 'Transactions', 'Number of new transactions within last 24 hours'),
    // The index holds sealed transactions only: none is pending in it.
    c('pendingTxns30m', '0', 'Pending transactions (30m)', 'Number of pending transactions within the last 30 minutes'),
    c('txnsFee24h', formatCoin(fees24h), 'Transactions fees (24h)', 'Sum of transaction fees within the last 24 hours', coin),
    c('averageTxnFee24h', formatCoin(count24h === 0n ? 0n : fees24h / count24h), 'Avg. transaction fee (24h)', 'Average transaction fee within the last 24 hours', coin),
    c('yesterdayTxns', v('yesterday_transactions'), 'Yesterday txns', 'Number of transactions yesterday (0:00 - 23:59 UTC)')
  ]
}
