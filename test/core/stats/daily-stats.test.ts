// The Stats API's figures over a chain of several UTC days written through the
// store stage: every counter and chart point equals what plain SQL over the
// indexed tables gives, after a reorg too; a rebuild finds no difference; and
// no figure scans transactions, blocks or addresses.
import t, { type Test } from 'tap'
import type { Knex } from 'knex'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { deleteBlocksAbove, storeBlocks } from '../../../core/indexer/store.ts'
import { readDailyRows, rebuildAndCompareDailyStats, rebuildDailyStats } from '../../../core/stats/daily-stats.ts'
import { createLatestBalances } from '../../../core/indexer/latest-balances.ts'
import { createQueries } from '../../../core/queries/index.ts'
import type { Resolution } from '../../../core/stats/line-charts.ts'
import { createTestDatabase } from '../../support/database.ts'
import { address, makeBlock, storeStatsChain, DAY_MS } from '../../support/stats-chain.ts'
import { storeVerifiedContract } from '../../../core/verify/store.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '.', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const db = database.knex
const { stats } = createQueries({ knex: db })
let head = await storeStatsChain(db)
// Three verified contracts: two today, one verified three days ago.
const VERIFIED = {
  language: 'solidity' as const,
  compilerVersion: 'v0.8.24+commit.e11b9ed9',
  compilerSettings: {},
  sources: { 'C.sol': '' },
  filePath: 'C.sol',
  abi: [],
  constructorArguments: null,
  matchType: 'full' as const,
  evmVersion: 'paris',
  optimization: false,
  optimizationRuns: null,
  licenseType: null,
  externalLibraries: [],
  verificationMethod: 'standard-json-input',
  runtimeCodeHash: Buffer.alloc(32)
}
for (const n of [900, 901, 902]) {
  await storeVerifiedContract(db, {
    ...VERIFIED, address: address(n), name: `C${n}`
  })
}
await db.raw("update verified_contracts set verified_at = now() - interval '3 days' where name = 'C900'")

const one = async (sql: string, bindings: Knex.RawBinding[] = []): Promise<string> => {
  const { rows: [row] } = await db.raw(sql, bindings)
  return String(Object.values(row as object)[0])
}
const DAY = "(b.timestamp at time zone 'UTC')::date"
/** Every address's balance at the end of day d.day: its last coin balance row up to then. */
const BALANCES_AT_DAY_END = `select distinct on (c.address) c.address, c.value from coin_balances c join blocks b on b.number = c.block_number
  where ${DAY} <= d.day order by c.address, c.block_number desc`

/** Per day, recomputed from the indexed tables: [chart id, SQL giving (day, value) for every indexed day]. */
const PLAIN: Array<[string, string]> = [
  ['newTxns', `select ${DAY} as day, count(t.hash) as v from blocks b left join transactions t on t.block_number = b.number group by 1`],
  ['newBlocks', `select ${DAY} as day, count(*) as v from blocks b group by 1`],
  ['txnsFee', `select ${DAY} as day, coalesce(sum(t.gas_used * t.effective_gas_price), 0) / 1e18 as v from blocks b left join transactions t on t.block_number = b.number group by 1`],
  ['txnsSuccessRate', `select ${DAY} as day, coalesce(count(*) filter (where t.status = 1)::numeric / nullif(count(t.hash), 0), 0) as v from blocks b left join transactions t on t.block_number = b.number group by 1`],
  ['averageGasUsed', `select ${DAY} as day, avg(b.gas_used) as v from blocks b group by 1`],
  ['averageBlockSize', `select ${DAY} as day, avg(b.size) as v from blocks b group by 1`],
  ['averageGasPrice', `select ${DAY} as day, coalesce(avg(t.effective_gas_price) / 1e9, 0) as v from blocks b left join transactions t on t.block_number = b.number group by 1`],
  ['networkUtilization', `select ${DAY} as day, sum(b.gas_used)::numeric / sum(b.gas_limit) as v from blocks b group by 1`],
  ['newNativeCoinTransfers', `select ${DAY} as day, count(t.hash) filter (where t.value > 0) as v from blocks b left join transactions t on t.block_number = b.number group by 1`],
  ['activeAccounts', `select ${DAY} as day, count(distinct t."from") as v from blocks b left join transactions t on t.block_number = b.number group by 1`],
  ['newAccounts', `select d.day, count(f.a) as v from (select distinct ${DAY} as day from blocks b) d
    left join (select t."from" as a, min(${DAY}) as day from transactions t join blocks b on b.number = t.block_number group by 1) f on f.day = d.day group by 1`],
  ['newContracts', `select ${DAY} as day, (select count(*) from transactions t where t.block_number = any(array_agg(b.number)) and t.created_contract is not null and t.status = 1)
    + (select count(*) from internal_transactions i where i.block_number = any(array_agg(b.number)) and i.created_contract is not null and i.trace_address <> '{}') as v from blocks b group by 1`],
  ['nativeCoinHoldersGrowth', `select d.day, count(*) filter (where x.value > 0) as v from (select distinct ${DAY} as day from blocks b) d
    left join lateral (${BALANCES_AT_DAY_END}) x on true group by 1`],
  ['newNativeCoinHolders', `select day, v - coalesce(lag(v) over (order by day), 0) as v from (select d.day, count(*) filter (where x.value > 0) as v
    from (select distinct ${DAY} as day from blocks b) d left join lateral (${BALANCES_AT_DAY_END}) x on true group by 1) h`],
  ['nativeCoinSupply', `select d.day, coalesce(sum(x.value) filter (where x.address <> '\\x${'00'.repeat(20)}'), 0) / 1e18 as v
    from (select distinct ${DAY} as day from blocks b) d left join lateral (${BALANCES_AT_DAY_END}) x on true group by 1`],
  ['newVerifiedContracts', `select d.day, (select count(*) from verified_contracts v where (v.verified_at at time zone 'UTC')::date = d.day) as v
    from (select distinct ${DAY} as day from blocks b) d`]
]

async function checkAgainstPlainSql (t: Test): Promise<void> {
  for (const [id, sql] of PLAIN) {
    const { rows } = await db.raw(`select to_char(day, 'YYYY-MM-DD') as day, v::text as v from (${sql}) x order by day`)
    const points = await stats.readLinePoints({ id, resolution: 'DAY' })
    const byDate = new Map(points.map((p) => [p.date, p.value]))
    for (const r of rows as Array<{ day: string, v: string }>) {
      t.ok(Math.abs(Number(byDate.get(r.day)) - Number(r.v)) <= Number(r.v) * 1e-12, `${id} on ${r.day}: ${byDate.get(r.day)} = ${r.v}`)
    }
    // Days without blocks between the first and the last are there, as zeros.
    t.equal(points.length, Number(await one("select max((timestamp at time zone 'UTC')::date) - min((timestamp at time zone 'UTC')::date) + 1 from blocks")), `${id}: every day`)
  }
  const counters = new Map((await stats.readCounters('ETH')).map((c) => [c.id, c.value]))
  const expected: Record<string, string> = {
    totalBlocks: await one('select count(*) from blocks'),
    totalTxns: await one('select count(*) from transactions'),
    completedTxns: await one('select count(*) from transactions where status = 1'),
    totalAccounts: await one('select count(distinct "from") from transactions'),
    totalAddresses: await one('select count(*) from addresses'),
    totalNativeCoinHolders: await one('select count(*) from addresses where coin_balance > 0'),
    totalVerifiedContracts: await one('select count(*) from verified_contracts'),
    newVerifiedContracts24h: await one("select count(*) from verified_contracts where verified_at >= now() - interval '24 hours'"),
    lastNewVerifiedContracts: await one("select count(*) from verified_contracts where (verified_at at time zone 'UTC')::date = (now() at time zone 'UTC')::date"),
    txnsFee24h: await one(`select trim_scale(coalesce(sum(t.gas_used * t.effective_gas_price), 0) / 1e18) from transactions t join blocks b on b.number = t.block_number
      where b.timestamp >= now() - interval '24 hours'`),
    totalTokens: await one('select count(*) from tokens'),
    totalNativeCoinTransfers: await one('select count(*) from transactions where value > 0'),
    totalContracts: await one(`select (select count(*) from transactions where created_contract is not null and status = 1)
      + (select count(*) from internal_transactions where created_contract is not null and trace_address <> '{}')`),
    newTxns24h: await one("select count(*) from transactions t join blocks b on b.number = t.block_number where b.timestamp >= now() - interval '24 hours'"),
    yesterdayTxns: await one(`select count(t.hash) from blocks b join transactions t on t.block_number = b.number where ${DAY} = (now() at time zone 'UTC')::date - 1`),
    lastNewContracts: await one(`select (select count(*) from transactions t join blocks b on b.number = t.block_number
      where t.created_contract is not null and t.status = 1 and ${DAY} = (now() at time zone 'UTC')::date)
      + (select count(*) from internal_transactions i join blocks b on b.number = i.block_number
      where i.created_contract is not null and i.trace_address <> '{}' and ${DAY} = (now() at time zone 'UTC')::date)`)
  }
  for (const [id, value] of Object.entries(expected)) t.equal(counters.get(id), value, id)
  const growth = await stats.readLinePoints({ id: 'txnsGrowth', resolution: 'DAY' })
  t.equal(growth.at(-1)!.value, expected.totalTxns, 'txnsGrowth ends at the total')
  t.equal((await stats.readLinePoints({ id: 'accountsGrowth', resolution: 'DAY' })).at(-1)!.value, expected.totalAccounts, 'accountsGrowth ends at the total')
  // Week, month and year: the sums of their days, and distinct senders over the period.
  for (const resolution of ['WEEK', 'MONTH', 'YEAR'] as Resolution[]) {
    const unit = resolution.toLowerCase()
    const { rows } = await db.raw(`select to_char(date_trunc('${unit}', ${DAY}), 'YYYY-MM-DD') as day, count(t.hash)::text as n, count(distinct t."from")::text as active
      from blocks b left join transactions t on t.block_number = b.number group by 1 order by 1`)
    const txns = new Map((await stats.readLinePoints({ id: 'newTxns', resolution })).map((p) => [p.date, p.value]))
    const active = new Map((await stats.readLinePoints({ id: 'activeAccounts', resolution })).map((p) => [p.date, p.value]))
    for (const r of rows as Array<{ day: string, n: string, active: string }>) {
      t.equal(txns.get(r.day), r.n, `newTxns ${resolution} ${r.day}`)
      t.equal(active.get(r.day), r.active, `activeAccounts ${resolution} ${r.day}`)
    }
  }
}

t.test('every counter and daily point equals plain SQL over the indexed tables', async (t) => {
  await checkAgainstPlainSql(t)
  const points = await stats.readLinePoints({ id: 'newTxns', resolution: 'DAY' })
  t.equal(points.at(-1)!.is_approximate, true, 'today is approximate')
  t.equal(points.at(-2)!.is_approximate, undefined, 'yesterday is not')
})

t.test('a reorg takes the removed blocks\' share out; the new branch\'s is added', async (t) => {
  const before = await readDailyRows(db)
  // Three blocks replaced (yesterday's second block and today's), the new branch with other senders, in one
  // batch over two days: sender 30 is new yesterday and active, not new, today.
  await deleteBlocksAbove(db, head - 3)
  const now = Date.now()
  const midnight = now - now % DAY_MS
  await storeBlocks(db, [makeBlock(head - 2, midnight - DAY_MS + 85_000_000, [20, 30], 1), makeBlock(head - 1, Math.max(midnight + 1000, now - 90_000), [30, 1], 1)])
  head = head - 1
  t.not(JSON.stringify(await readDailyRows(db)), JSON.stringify(before), 'the figures moved')
  await checkAgainstPlainSql(t)
})

t.test('a rebuild from the indexed tables finds the incremental rows unchanged', async (t) => {
  const incremental = await readDailyRows(db)
  await db.transaction(async (trx) => { await rebuildDailyStats(trx) })
  t.same(await readDailyRows(db), incremental)
})

t.test('stored with the writer\'s cache of latest balances, the daily rows are what a rebuild computes', async (t) => {
  const other = await openDatabase({ url: await createTestDatabase(t), dataDir: '.', log: pino({ level: 'warn' }) })
  t.teardown(async () => await other.close())
  const latest = createLatestBalances()
  await storeStatsChain(other.knex, Date.now(), latest)
  t.ok(latest.size > 0, 'the cache answered for the addresses seen before')
  const { days, differences } = await rebuildAndCompareDailyStats(other.knex)
  t.ok(days > 0)
  t.same(differences, [], 'the balances the store knew count as those looked up')
})

t.test('the counters and a year of daily points read no table that grows with the chain', async (t) => {
  const today = new Date().toISOString().slice(0, 10)
  const yearAgo = new Date(Date.now() - 365 * DAY_MS).toISOString().slice(0, 10)
  const plans: string[] = []
  // The planner would scan tables this small whole: with scans discouraged, it shows which indexes the queries can use.
  await db.transaction(async (trx) => {
    await trx.raw('set local enable_seqscan = off')
    const explain = async (sql: string, bindings: Knex.RawBinding[]): Promise<void> => {
      const { rows } = await trx.raw(`explain ${sql.replace(/\$\d+/g, '?')}`, bindings)
      plans.push(rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n'))
    }
    const { queries } = await captureQueries(trx, async () => {
      const { stats } = createQueries({ knex: trx })
      await stats.readCounters('ETH')
      for (const id of ['newTxns', 'activeAccounts', 'txnsGrowth', 'averageGasPrice', 'nativeCoinSupply', 'verifiedContractsGrowth']) {
        for (const resolution of ['DAY', 'MONTH'] as Resolution[]) await stats.readLinePoints({ id, from: yearAgo, to: today, resolution })
      }
    })
    for (const { sql, bindings } of queries) await explain(sql, bindings)
  })
  t.ok(plans.length > 0)
  for (const plan of plans) t.notMatch(plan, /Seq Scan on (transactions|blocks|addresses|internal_transactions|coin_balances)\b/, plan.split('\n')[0] ?? '')
})

/** The SQL a function sends through `trx`, with its bindings. */
async function captureQueries (trx: { on: Function, off: Function }, run: () => Promise<void>): Promise<{ queries: Array<{ sql: string, bindings: Knex.RawBinding[] }> }> {
  const queries: Array<{ sql: string, bindings: Knex.RawBinding[] }> = []
  const listener = (q: { sql: string, bindings?: Knex.RawBinding[] }) => { if (!q.sql.startsWith('explain')) queries.push({ sql: q.sql, bindings: q.bindings ?? [] }) }
  trx.on('query', listener)
  try { await run() } finally { trx.off('query', listener) }
  return { queries }
}
