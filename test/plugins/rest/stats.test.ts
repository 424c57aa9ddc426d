// Blockscout's stats endpoints on a real chain: totals, pace, gas prices and
// the last 24 hours compared with the node; shapes from Blockscout's OpenAPI
// spec. (Days of history, which a live chain cannot have: test/core/stats.)
import t from 'tap'
import { build } from '../../helper.ts'
import { sealBlocks, writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { OPENAPI_SPEC_PRESENT, checkSpec } from '../../support/openapi.ts'
import { GAS_ORACLE_BLOCKS, GAS_ORACLE_PERCENTILES, PACE_BLOCKS } from '../../../core/stats/chain.ts'

type NodeBlock = { number: string, timestamp: string, gasUsed: string, gasLimit: string, baseFeePerGas: string, transactions: string[] }
type NodeReceipt = { gasUsed: string, effectiveGasPrice: string }

const { wallets, allocFile } = await writeFundedAlloc(t, 3)
const { app } = await build(t, { GENESIS_ALLOC: allocFile })
await sealBlocks({ rpc: app.geth.rpc, wallets, rounds: 30 })
const head = await waitForIndexed(app)
const rpc = app.geth.rpc
const get = async (url: string, headers: Record<string, string> = {}) => await app.inject({ method: 'GET', url, headers })
if (!OPENAPI_SPEC_PRESENT) t.comment('../shared/api is absent: responses are not checked against Blockscout\'s OpenAPI spec')

const blocks: NodeBlock[] = []
const receipts: NodeReceipt[][] = []
for (let n = 0; n <= head; n++) {
  blocks.push(await rpc.call<NodeBlock>('eth_getBlockByNumber', ['0x' + n.toString(16), false]))
  receipts.push(await rpc.call<NodeReceipt[]>('eth_getBlockReceipts', ['0x' + n.toString(16)]))
}
const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n)
const gwei = (wei: bigint, round = Math.round) => round(Number(wei) / 1e9 * 100) / 100

/** The priority fees paid in the oracle's blocks, at its percentiles (nearest rank), over the newest base fee. */
function oracle (): { baseFee: bigint, fees: bigint[] } {
  const paid = blocks.slice(-GAS_ORACLE_BLOCKS).flatMap((b, i) =>
    receipts.slice(-GAS_ORACLE_BLOCKS)[i]!.map((r) => BigInt(r.effectiveGasPrice) - BigInt(b.baseFeePerGas))).sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
  return {
    baseFee: BigInt(blocks.at(-1)!.baseFeePerGas),
    fees: GAS_ORACLE_PERCENTILES.map((p) => paid[Math.max(0, Math.ceil(p * paid.length) - 1)]!)
  }
}

t.test('GET /api/v2/stats: totals, pace and gas prices as the node gives them', async (t) => {
  const response = await get('/api/v2/stats')
  t.equal(response.statusCode, 200)
  const body = response.json()
  checkSpec(t, '/v2/stats', body)
  const transactions = blocks.reduce((n, b) => n + b.transactions.length, 0)
  t.ok(transactions > 0)
  t.equal(body.total_blocks, String(head + 1))
  t.equal(body.total_transactions, String(transactions))
  t.equal(body.total_gas_used, sum(blocks.map((b) => BigInt(b.gasUsed))).toString())
  const midnight = Math.floor(Date.now() / 86_400_000) * 86_400
  const today = blocks.filter((b) => Number(b.timestamp) >= midnight)
  t.equal(body.transactions_today, String(today.reduce((n, b) => n + b.transactions.length, 0)))
  t.equal(body.gas_used_today, sum(today.map((b) => BigInt(b.gasUsed))).toString())
  const newest = blocks.slice(-PACE_BLOCKS)
  t.equal(body.average_block_time, (Number(newest.at(-1)!.timestamp) - Number(newest[0]!.timestamp)) * 1000 / (newest.length - 1))
  t.equal(body.network_utilization_percentage,
    Number(sum(newest.map((b) => BigInt(b.gasUsed)))) * 100 / Number(sum(newest.map((b) => BigInt(b.gasLimit)))))
  // Every account the node shows: the genesis allocation, senders and recipients.
  const seen = new Set<string>()
  for (let n = 0; n <= head; n++) {
    const block = await rpc.call<{ transactions: Array<{ from: string, to: string | null }> }>('eth_getBlockByNumber', ['0x' + n.toString(16), true])
    for (const tx of block.transactions) for (const a of [tx.from, tx.to]) if (a !== null) seen.add(a.toLowerCase())
  }
  t.ok(Number(body.total_addresses) >= seen.size, `${body.total_addresses} addresses, the transactions show ${seen.size}`)
  const { rows: [stored] } = await app.db.knex.raw('select count(*)::text as n from addresses')
  t.equal(body.total_addresses, stored.n)

  const { baseFee, fees } = oracle()
  t.same(body.gas_prices, { slow: gwei(baseFee + fees[0]!), average: gwei(baseFee + fees[1]!), fast: gwei(baseFee + fees[2]!) })
  t.ok(body.gas_prices_update_in > 0 && body.gas_prices_update_in <= 5000, `next update in ${body.gas_prices_update_in} ms`)
  t.ok(Math.abs(Date.parse(body.gas_price_updated_at) - Date.now()) < 60_000)
  t.same([body.coin_price, body.market_cap, body.tvl, body.static_gas_price], [null, '0', null, null], 'no price feed')
})

t.test('GET /api/v2/stats with updated-gas-oracle: true gives each price with its parts', async (t) => {
  const body = (await get('/api/v2/stats', { 'updated-gas-oracle': 'true' })).json()
  checkSpec(t, '/v2/stats', body)
  const { baseFee, fees } = oracle()
  const expected = (fee: bigint) => ({
    price: gwei(baseFee + fee, Math.ceil),
    time: null,
    fiat_price: null,
    base_fee: gwei(baseFee),
    priority_fee: gwei(fee),
    priority_fee_wei: fee.toString(),
    wei: (baseFee + fee).toString()
  })
  t.same(body.gas_prices, { slow: expected(fees[0]!), average: expected(fees[1]!), fast: expected(fees[2]!) })
})

t.test('GET /api/v2/transactions/stats: the last 24 hours as the node gives them', async (t) => {
  const response = await get('/api/v2/transactions/stats')
  t.equal(response.statusCode, 200)
  const body = response.json()
  checkSpec(t, '/v2/transactions/stats', body)
  const since = Date.now() / 1000 - 86_400
  const window = receipts.filter((_, n) => Number(blocks[n]!.timestamp) >= since).flat()
  const fees = sum(window.map((r) => BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice)))
  t.equal(body.transactions_count_24h, String(window.length))
  t.equal(body.transaction_fees_sum_24h, fees.toString())
  t.equal(body.transaction_fees_avg_24h, (fees / BigInt(window.length)).toString())
  const pool = await rpc.call<{ pending: string }>('txpool_status')
  t.equal(body.pending_transactions_count, BigInt(pool.pending).toString())
})

t.test('GET /api/v2/stats/charts/transactions and /charts/market answer their shapes', async (t) => {
  const chart = (await get('/api/v2/stats/charts/transactions')).json()
  checkSpec(t, '/v2/stats/charts/transactions', chart)
  t.equal(chart.chart_data.length, 30)
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
  t.equal(chart.chart_data[0].date, yesterday, 'newest first, from yesterday')
  const market = (await get('/api/v2/stats/charts/market')).json()
  checkSpec(t, '/v2/stats/charts/market', market)
  t.same(market, { chart_data: [], available_supply: '0' })
})

t.test('the stats are read once per refresh period, not per request', async (t) => {
  const first = (await get('/api/v2/stats')).json()
  const startedAt = Date.now()
  await sealBlocks({ rpc, wallets, rounds: 2 })
  const indexed = await waitForIndexed(app)
  const second = (await get('/api/v2/stats')).json()
  // The period is 5 s: on a machine slow enough to take longer, the second read is due.
  if (Date.now() - startedAt > 4000) return t.comment('sealing and indexing took over 4 s: the cache cannot be told from a fresh read here')
  t.equal(second.total_blocks, first.total_blocks, 'the cached totals, though the index moved on')
  t.ok(indexed + 1 > Number(first.total_blocks))
  t.ok(second.gas_prices_update_in <= first.gas_prices_update_in)
})

t.test('after a quiet spell longer than the bound (5 s), the first read shows the blocks indexed meanwhile', async (t) => {
  await get('/api/v2/stats')
  const readAt = Date.now()
  await sealBlocks({ rpc, wallets, rounds: 2 })
  const indexed = await waitForIndexed(app)
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, readAt + 5200 - Date.now())))
  const after = (await get('/api/v2/stats')).json()
  t.equal(after.total_blocks, String(indexed + 1), 'the totals of the index now, not those kept from before the spell')
})

t.test('unknown parameters answer 422', async (t) => {
  for (const url of ['/api/v2/stats?x=1', '/api/v2/transactions/stats?x=1', '/api/v2/stats/charts/transactions?x=1']) {
    const response = await get(url)
    t.equal(response.statusCode, 422, url)
    t.ok(Array.isArray(response.json().errors))
  }
})
