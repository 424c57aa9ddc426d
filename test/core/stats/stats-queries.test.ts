// The stats queries on PostgreSQL over blocks with chosen timestamps: the
// daily chart, "today", the last 24 hours and the pace (a live chain's blocks
// are all from now; these need days of history).
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { createQueries } from '../../../core/queries/index.ts'
import { CHART_DAYS } from '../../../core/stats/daily-transactions.ts'
import { GAS_ORACLE_BLOCKS, nextBaseFee } from '../../../core/stats/chain.ts'
import { createTestDatabase } from '../../support/database.ts'
import { rebuildDailyStats } from '../../../core/stats/daily-stats.ts'

const DAY_MS = 86_400_000
const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '.', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const db = database.knex
const { readChainStats, readDailyTransactions, readTransactionStats } = createQueries({ knex: db }).stats

const bytes = (n: number, size: number) => Buffer.from(n.toString(16).padStart(size * 2, '0'), 'hex')
const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

// Block n at `ms`, with `count` transactions of 21,000 gas each at 2 gwei over a 1 gwei base fee.
// Whole seconds, as block timestamps are.
type Planned = { ms: number, count: number }
const planned: Planned[] = ([
  { ms: midnight - 40 * DAY_MS, count: 7 }, // before the chart's 30 days
  { ms: midnight - 30 * DAY_MS + 1000, count: 3 }, // the oldest day shown
  { ms: midnight - 2 * DAY_MS + 5000, count: 2 },
  { ms: midnight - 2 * DAY_MS + 9000, count: 4 }, // the same day: 6
  { ms: midnight - DAY_MS + 3_600_000, count: 5 }, // yesterday
  { ms: Math.max(midnight + 1000, Date.now() - 60_000), count: 1 }, // today
  { ms: Date.now() - 1000, count: 2 } // today, within a second of now
] as Planned[]).map((b) => ({ ...b, ms: Math.floor(b.ms / 1000) * 1000 }))
let hashCounter = 0
/** Block n at `ms` with room for `count` transactions of 21,000 gas, over a 1 gwei base fee. */
async function insertBlock (n: number, ms: number, count: number): Promise<void> {
  await db('blocks').insert({
    number: n,
    hash: bytes(1000 + n, 32),
    parent_hash: bytes(999 + n, 32),
    timestamp: new Date(ms),
    miner: bytes(0, 20),
    gas_limit: 30_000_000,
    gas_used: 21_000 * count,
    base_fee_per_gas: '1000000000',
    size: 600,
    nonce: bytes(0, 8),
    difficulty: 2,
    total_difficulty: n * 2 + 1,
    extra_data: Buffer.alloc(0),
    transaction_count: count,
    internal_transaction_count: 0
  })
}
for (const [n, { ms, count }] of planned.entries()) {
  await insertBlock(n, ms, count)
  for (let i = 0; i < count; i++) {
    await db('transactions').insert({
      hash: bytes(++hashCounter, 32),
      block_number: n,
      transaction_index: i,
      from: bytes(1, 20),
      to: bytes(2, 20),
      value: 1,
      gas: 21_000,
      type: 2,
      nonce: hashCounter,
      input: Buffer.alloc(0),
      status: 1,
      gas_used: 21_000,
      cumulative_gas_used: 21_000 * (i + 1),
      // Priority fees of 1, 2, 3 ... gwei over the base fee: the oracle's percentiles are known.
      effective_gas_price: String(1_000_000_000n + BigInt(hashCounter) * 1_000_000_000n)
    })
  }
}

// Written around the store: the daily sums the stats read are computed from the rows once.
await db.transaction(async (trx) => { await rebuildDailyStats(trx) })

t.test('the chart: the 30 days up to yesterday, newest first, every day present', async (t) => {
  const chart = await readDailyTransactions()
  t.equal(chart.length, CHART_DAYS)
  t.same(chart.map((d) => d.date), Array.from({ length: CHART_DAYS }, (_, i) => dayOf(midnight - (i + 1) * DAY_MS)))
  const byDate = new Map(chart.map((d) => [d.date, d.transactionsCount]))
  t.equal(byDate.get(dayOf(midnight - DAY_MS)), 5, 'yesterday')
  t.equal(byDate.get(dayOf(midnight - 2 * DAY_MS)), 6, 'two blocks of one day summed')
  t.equal(byDate.get(dayOf(midnight - 30 * DAY_MS)), 3, 'the oldest day')
  t.equal(chart.reduce((sum, d) => sum + d.transactionsCount, 0), 14, 'nothing from today or before the 30 days')
})

t.test('totals, today and the gas price oracle', async (t) => {
  const stats = await readChainStats()
  const total = planned.reduce((sum, b) => sum + b.count, 0)
  t.equal(stats.totalBlocks, String(planned.length))
  t.equal(stats.totalTransactions, String(total))
  t.equal(stats.totalGasUsed, String(21_000 * total))
  t.equal(stats.transactionsToday, '3')
  t.equal(stats.gasUsedToday, String(21_000 * 3))
  const seconds = planned.map((b) => b.ms / 1000)
  t.equal(stats.averageBlockTimeMs, (seconds.at(-1)! - seconds[0]!) * 1000 / (planned.length - 1), 'over all blocks when there are fewer than 100')
  t.equal(stats.networkUtilizationPercentage, 21_000 * total * 100 / (30_000_000 * planned.length))
  // Priority fees 1..24 gwei: the 35th, 60th and 90th percentiles (nearest rank) are 9, 15 and 22 gwei.
  t.same(stats.gasPrices, { baseFee: '1000000000', priorityFees: ['9000000000', '15000000000', '22000000000'] })
})

t.test('the last 24 hours', async (t) => {
  const stats = await readTransactionStats()
  // Yesterday's block is 20 to 24 hours ago only late in a UTC day: count what the window holds.
  const since = Date.now() - DAY_MS
  const inWindow = planned.map((b, n) => ({ ...b, n })).filter((b) => b.ms >= since)
  const count = inWindow.reduce((sum, b) => sum + b.count, 0)
  let first = 0
  for (const b of planned.slice(0, inWindow[0]!.n)) first += b.count
  const fees = Array.from({ length: count }, (_, i) => 21_000n * (1_000_000_000n + BigInt(first + i + 1) * 1_000_000_000n)).reduce((a, b) => a + b, 0n)
  t.equal(stats.count24h, String(count))
  t.equal(stats.feesSum24h, fees.toString())
  t.equal(stats.feesAverage24h, (fees / BigInt(count)).toString())
})

t.test('no transaction in the oracle\'s 200 blocks: the next block\'s base fee, no priority fee (Blockscout)', async (t) => {
  const next = planned.length
  for (let n = next; n < next + GAS_ORACLE_BLOCKS; n++) await insertBlock(n, Date.now(), 0)
  // An empty block lowers the base fee by an eighth.
  t.same((await readChainStats()).gasPrices, { baseFee: '875000000', priorityFees: ['0', '0', '0'] })
  await db('blocks').where('number', '>=', next).del()
})

t.test('nextBaseFee() follows EIP-1559 as Geth does', async (t) => {
  t.equal(nextBaseFee(15_000_000n, 30_000_000n, 1000n), 1000n, 'at the target: unchanged')
  t.equal(nextBaseFee(30_000_000n, 30_000_000n, 1_000_000_000n), 1_125_000_000n, 'a full block: up an eighth')
  t.equal(nextBaseFee(15_000_001n, 30_000_000n, 7n), 8n, 'up by at least 1 wei')
  t.equal(nextBaseFee(0n, 30_000_000n, 1_000_000_000n), 875_000_000n, 'an empty block: down an eighth')
  t.equal(nextBaseFee(0n, 30_000_000n, 7n), 7n, 'a fee of 7 wei stays (7/8 rounds to 0)')
})

t.test('an empty chain: zeros, and no gas prices', async (t) => {
  await db('transactions').del()
  await db('blocks').del()
  await db.transaction(async (trx) => { await rebuildDailyStats(trx) })
  const stats = await readChainStats()
  t.equal(stats.totalBlocks, '0')
  t.equal(stats.totalTransactions, '0')
  t.equal(stats.averageBlockTimeMs, 0)
  t.equal(stats.networkUtilizationPercentage, 0)
  t.equal(stats.gasPrices, null)
  t.same(await readTransactionStats(), { count24h: '0', feesSum24h: '0', feesAverage24h: '0' })
  t.ok((await readDailyTransactions()).every((d) => d.transactionsCount === 0))
})
