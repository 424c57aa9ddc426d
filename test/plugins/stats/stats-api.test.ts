// The Stats API over HTTP (/stats/api/v1), on a chain of several days written
// through the store stage: shapes as the stats service documents them, the
// chart catalogue, filled and rolled-up points, and the service's errors.
import t from 'tap'
import Fastify from 'fastify'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { createQueries } from '../../../core/queries/index.ts'
import dbPlugin from '../../../plugins/db/index.ts'
import apiDocs from '../../../plugins/api-docs/index.ts'
import stats from '../../../plugins/stats/index.ts'
import { createTestDatabase } from '../../support/database.ts'
import { makeBlock, storeStatsChain } from '../../support/stats-chain.ts'
import { storeBlocks } from '../../../core/indexer/store.ts'
import { MAX_AGE_MS, MIN_GZIP_BYTES, REFRESH_MS } from '../../../plugins/stats/answers.ts'
import { gunzipSync } from 'node:zlib'
import { Ajv } from 'ajv'
import fp from 'fastify-plugin'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '.', log: pino({ level: 'warn' }) })
const head = await storeStatsChain(database.knex)
const app = Fastify()
await app.register(apiDocs, { version: '0.0.0' })
await app.register(dbPlugin, { database })
await app.register(stats, { coinSymbol: 'TST' })
await app.ready()
t.teardown(async () => await app.close())
const get = async (url: string) => { const r = await app.inject({ method: 'GET', url }); return { status: r.statusCode, body: r.json() } }

const CHARTS = ['newTxns', 'txnsGrowth', 'txnsFee', 'averageTxnFee', 'txnsSuccessRate', 'newAccounts', 'accountsGrowth', 'activeAccounts',
  'newContracts', 'contractsGrowth', 'newVerifiedContracts', 'verifiedContractsGrowth', 'newBlocks', 'averageBlockSize', 'averageBlockRewards',
  'averageGasLimit', 'averageGasUsed', 'gasUsedGrowth', 'averageGasPrice', 'networkUtilization', 'newNativeCoinTransfers',
  'nativeCoinSupply', 'newNativeCoinHolders', 'nativeCoinHoldersGrowth']

t.test('counters: every id, values as strings, the coin symbol from configuration', async (t) => {
  const { status, body } = await get('/stats/api/v1/counters')
  t.equal(status, 200)
  const ids = body.counters.map((c: { id: string }) => c.id)
  for (const id of ['averageBlockTime', 'totalBlocks', 'totalAddresses', 'totalTxns', 'completedTxns', 'totalAccounts', 'totalNativeCoinTransfers',
    'totalNativeCoinHolders', 'totalTokens', 'totalContracts', 'totalVerifiedContracts', 'newContracts24h', 'newVerifiedContracts24h', 'lastNewContracts',
    'lastNewVerifiedContracts', 'newTxns24h', 'pendingTxns30m', 'txnsFee24h', 'averageTxnFee24h', 'yesterdayTxns']) t.ok(ids.includes(id), id)
  for (const c of body.counters) {
    t.same(Object.keys(c).sort(), ['description', 'id', 'title', 'units', 'value'])
    t.type(c.value, 'string')
  }
  t.equal(body.counters.find((c: { id: string }) => c.id === 'txnsFee24h').units, 'TST')
  t.match(body.counters.find((c: { id: string }) => c.id === 'totalNativeCoinTransfers').title, /TST/)
})

t.test('lines: the sections and each chart\'s info, every chart readable at every resolution', async (t) => {
  const { body } = await get('/stats/api/v1/lines')
  const listed = body.sections.flatMap((s: { charts: Array<{ id: string }> }) => s.charts.map((c) => c.id))
  t.same(listed.slice().sort(), CHARTS.slice().sort())
  t.same(body.sections.map((s: { id: string }) => s.id), ['accounts', 'transactions', 'blocks', 'tokens', 'gas', 'contracts'])
  for (const id of CHARTS) {
    for (const resolution of ['DAY', 'WEEK', 'MONTH', 'YEAR']) {
      const r = await get(`/stats/api/v1/lines/${id}?resolution=${resolution}`)
      t.equal(r.status, 200, `${id} ${resolution}`)
      t.equal(r.body.info.id, id)
      t.ok(r.body.chart.length > 0)
      t.equal(r.body.chart.at(-1).is_approximate, true, 'the period under way is approximate')
    }
  }
})

t.test('lines/{id}: from and to inclusive, missing days filled, periods with their last day', async (t) => {
  const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10)
  const { body } = await get(`/stats/api/v1/lines/newTxns?from=${day(5)}&to=${day(1)}`)
  t.same(body.chart.map((p: { date: string }) => p.date), [day(5), day(4), day(3), day(2), day(1)])
  t.equal(body.chart[1].value, '0', 'a day without blocks is zero')
  t.equal(body.chart[0].date_to, day(5))
  t.notOk('is_approximate' in body.chart[0], 'omitted when false')
  const growth = await get(`/stats/api/v1/lines/txnsGrowth?from=${day(4)}&to=${day(4)}`)
  t.equal(growth.body.chart[0].value, '10', 'a running total counts the days before the range')
  const month = await get('/stats/api/v1/lines/newTxns?resolution=MONTH&from=2026-02-10&to=2026-02-10')
  t.same(month.body.chart, [{ date: '2026-02-01', date_to: '2026-02-28', value: '0' }])
  const ignored = await get('/stats/api/v1/lines/newTxns?from=yesterday&to=2026-13-40')
  t.equal(ignored.status, 200, 'unparseable dates are ignored')
  t.equal(ignored.body.chart.length, 7)
})

t.test('errors: the service\'s codes and messages', async (t) => {
  t.same(await get('/stats/api/v1/lines/noSuchChart'), { status: 404, body: { code: 5, message: "chart with name 'noSuchChart' was not found" } })
  t.same(await get('/stats/api/v1/lines/newTxns?resolution=DECADE'), { status: 404, body: { code: 5, message: "resolution 'DECADE' for line chart 'newTxns' was not found" } })
  const limit = await get('/stats/api/v1/lines/newTxns?from=0001-01-01&to=9999-12-31')
  t.equal(limit.status, 400)
  t.equal(limit.body.code, 3)
  t.match(limit.body.message, /^exceeded limit on requested data points \(~\d+\); choose smaller time interval\.$/)
  t.equal((await get('/stats/api/v1/lines/newTxns?from=0001-01-01&to=9999-12-31&resolution=YEAR')).status, 200, 'the same range by year is within the limit')
  const tooLong = await get(`/stats/api/v1/lines/newTxns?from=${'9'.repeat(41)}`)
  t.equal(tooLong.status, 400, 'a query string the schema refuses: the service\'s body too')
  t.equal(tooLong.body.code, 3)
})

t.test('pages and update status', async (t) => {
  const main = await get('/stats/api/v1/pages/main')
  t.equal(main.body.total_blocks.id, 'totalBlocks')
  t.equal(main.body.total_operational_transactions, null)
  t.equal(main.body.daily_new_transactions.chart.length, 30)
  t.notOk(main.body.daily_new_transactions.chart.some((p: { is_approximate?: boolean }) => p.is_approximate), 'complete days only')
  const transactions = await get('/stats/api/v1/pages/transactions')
  t.equal(transactions.body.transactions_24h.id, 'newTxns24h')
  t.equal(transactions.body.pending_transactions_30m.value, '0')
  const contracts = await get('/stats/api/v1/pages/contracts')
  t.same(Object.keys(contracts.body).sort(), ['new_contracts_24h', 'new_verified_contracts_24h', 'total_contracts', 'total_verified_contracts'])
  const status = await get('/stats/api/v1/update-status')
  t.equal(status.body.all_status, 'COMPLETED_INITIAL_UPDATE')
})

t.test('answers go gzipped to a client that takes gzip: the same JSON, a fraction of the bytes', async (t) => {
  const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10)
  const url = `/stats/api/v1/lines/newTxns?from=${day(364)}&to=${day(0)}`
  const plain = await app.inject({ method: 'GET', url })
  t.equal(plain.headers['content-encoding'], undefined, 'not asked: not compressed')
  t.equal(plain.headers.vary, 'accept-encoding')
  for (const accept of ['gzip, deflate, br', 'br;q=1.0, gzip;q=0.8', '*']) {
    const zipped = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': accept } })
    t.equal(zipped.headers['content-encoding'], 'gzip', accept)
    t.same(JSON.parse(gunzipSync(zipped.rawPayload).toString()), plain.json())
    t.ok(zipped.rawPayload.length * 5 < plain.rawPayload.length, `${zipped.rawPayload.length} bytes for ${plain.rawPayload.length}`)
  }
  for (const accept of ['gzip;q=0', 'deflate', 'identity']) {
    t.equal((await app.inject({ method: 'GET', url, headers: { 'accept-encoding': accept } })).headers['content-encoding'], undefined, accept)
  }
  const status = await app.inject({ method: 'GET', url: '/stats/api/v1/lines/newTxns?resolution=YEAR', headers: { 'accept-encoding': 'gzip' } })
  t.ok(status.rawPayload.length < MIN_GZIP_BYTES && status.headers['content-encoding'] === undefined, 'a small answer goes as it is')
})

t.test('every route is on /api-docs', async (t) => {
  const spec = app.swagger() as { paths: Record<string, unknown> }
  for (const path of ['/stats/api/v1/counters', '/stats/api/v1/lines', '/stats/api/v1/lines/{name}', '/stats/api/v1/pages/main',
    '/stats/api/v1/pages/transactions', '/stats/api/v1/pages/contracts', '/stats/api/v1/update-status']) t.ok(spec.paths[path], path)
})

type PlanNode = { 'Node Type': string, 'Relation Name'?: string, 'Index Cond'?: string, 'Recheck Cond'?: string, Plans?: PlanNode[] }
const CHAIN_TABLES = ['transactions', 'blocks', 'addresses']

/**
 * Scans of a table that grows with the chain that read it whole: a sequential
 * scan, or an index scan with no condition and no limit above it. A bounded
 * range (the newest 100 blocks, the last 24 hours' transactions) is not one.
 */
function wholeTableScans (node: PlanNode, limited = false): string[] {
  const underLimit = limited || node['Node Type'] === 'Limit'
  const own = node['Relation Name'] !== undefined && CHAIN_TABLES.includes(node['Relation Name']) &&
    (node['Node Type'] === 'Seq Scan' || (node['Index Cond'] === undefined && node['Recheck Cond'] === undefined && !underLimit))
    ? [`${node['Node Type']} on ${node['Relation Name']}`]
    : []
  return [...own, ...(node.Plans ?? []).flatMap((child) => wholeTableScans(child, underLimit))]
}

t.test('the plan test: no counter, chart or page request reads transactions, blocks or addresses whole', async (t) => {
  const year = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10)
  const paths = ['/stats/api/v1/counters', '/stats/api/v1/pages/main', '/stats/api/v1/pages/transactions', '/stats/api/v1/pages/contracts',
    ...CHARTS.flatMap((id) => ['DAY', 'MONTH'].map((resolution) => `/stats/api/v1/lines/${id}?from=${year(365)}&to=${year(0)}&resolution=${resolution}`))]
  const queries: Array<{ path: string, sql: string, bindings: unknown[] }> = []
  let path = ''
  const listener = (q: { sql: string, bindings?: unknown[] }) => { queries.push({ path, sql: q.sql, bindings: q.bindings ?? [] }) }
  // An app of its own: answers the other tests read are still in the first one's memory, and would send no SQL.
  const fresh = Fastify()
  fresh.decorate('db', database)
  fresh.decorate('queries', createQueries({ knex: database.knex, prepared: database.prepared }))
  await fresh.register(fp(async () => {}, { name: 'db' }))
  await fresh.register(stats, { coinSymbol: 'TST' })
  t.teardown(async () => await fresh.close())
  database.knex.on('query', listener)
  try {
    for (path of paths) t.equal((await fresh.inject({ method: 'GET', url: path })).statusCode, 200, path)
  } finally {
    database.knex.off('query', listener)
  }
  for (const p of paths) t.ok(queries.some((q) => q.path === p), `${p} sent its statements`)
  // The planner would scan tables this small whole: with scans discouraged, it shows which indexes the statements can use.
  await database.knex.transaction(async (trx) => {
    await trx.raw('set local enable_seqscan = off')
    for (const q of queries) {
      const { rows } = await trx.raw(`explain (format json) ${q.sql.replace(/\$\d+/g, '?')}`, q.bindings as never)
      t.same(wholeTableScans(rows[0]['QUERY PLAN'][0].Plan), [], `${q.path}: ${q.sql.replace(/\s+/g, ' ').slice(0, 80)}`)
    }
  })
})

// The shapes as ../shared/api/graphql-stats-interpreter.md 2.1 documents them,
// written here from the document, not taken from the plugin's own schemas:
// every key present, nothing more, every figure a string.
const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }
const STATUS = { enum: ['PENDING', 'WAITING_FOR_STARTING_CONDITION', 'QUEUED_FOR_INITIAL_UPDATE', 'RUNNING_INITIAL_UPDATE', 'COMPLETED_INITIAL_UPDATE'] }
const exact = (properties: Record<string, object>, optional: string[] = []) =>
  ({ type: 'object', additionalProperties: false, required: Object.keys(properties).filter((k) => !optional.includes(k)), properties })
const orNull = (ref: string) => ({ anyOf: [{ $ref: ref }, { type: 'null' }] })
const DOCUMENTED = {
  $id: 'stats',
  definitions: {
    counter: exact({ id: { type: 'string' }, value: { type: 'string' }, title: { type: 'string' }, units: { type: ['string', 'null'] }, description: { type: 'string' } }),
    info: exact({
      id: { type: 'string' },
      title: { type: 'string' },
      description: { type: 'string' },
      units: { type: ['string', 'null'] },
      resolutions: { type: 'array', items: { enum: ['DAY', 'WEEK', 'MONTH', 'YEAR'] } }
    }),
    point: exact({ date: DATE, date_to: DATE, value: { type: 'string' }, is_approximate: { const: true } }, ['is_approximate']),
    lineChart: exact({ chart: { type: 'array', items: { $ref: '#/definitions/point' } }, info: { $ref: '#/definitions/info' } }),
    counters: exact({ counters: { type: 'array', items: { $ref: '#/definitions/counter' } } }),
    sections: exact({
      sections: { type: 'array', items: exact({ id: { type: 'string' }, title: { type: 'string' }, charts: { type: 'array', items: { $ref: '#/definitions/info' } } }) }
    }),
    mainPage: exact({
      ...Object.fromEntries(['average_block_time', 'total_addresses', 'total_blocks', 'total_transactions', 'yesterday_transactions', 'total_operational_transactions',
        'yesterday_operational_transactions', 'op_stack_total_operational_transactions', 'op_stack_yesterday_operational_transactions']
        .map((k) => [k, orNull('#/definitions/counter')])),
      ...Object.fromEntries(['daily_new_transactions', 'daily_new_operational_transactions', 'op_stack_daily_new_operational_transactions']
        .map((k) => [k, orNull('#/definitions/lineChart')]))
    }),
    transactionsPage: exact(Object.fromEntries(['pending_transactions_30m', 'transactions_fee_24h', 'average_transactions_fee_24h', 'transactions_24h',
      'operational_transactions_24h', 'op_stack_operational_transactions_24h', 'total_zetachain_cross_chain_txns', 'new_zetachain_cross_chain_txns_24h',
      'pending_zetachain_cross_chain_txns'].map((k) => [k, orNull('#/definitions/counter')]))),
    contractsPage: exact(Object.fromEntries(['total_contracts', 'new_contracts_24h', 'total_verified_contracts', 'new_verified_contracts_24h']
      .map((k) => [k, orNull('#/definitions/counter')]))),
    updateStatus: exact(Object.fromEntries(['all_status', 'independent_status', 'blocks_dependent_status', 'internal_transactions_dependent_status',
      'user_ops_dependent_status', 'zetachain_cctx_dependent_status'].map((k) => [k, STATUS]))),
    error: exact({ code: { type: 'integer' }, message: { type: 'string' } })
  }
}

t.test('every answer has the shape the stats service documents (graphql-stats-interpreter.md 2.1)', async (t) => {
  const ajv = new Ajv({ allErrors: true, strict: false })
  ajv.addSchema(DOCUMENTED)
  const check = (definition: string, path: string, body: unknown) => {
    const validate = ajv.getSchema(`stats#/definitions/${definition}`)!
    t.ok(validate(body), `${path}: ${ajv.errorsText(validate.errors)}`)
  }
  const cases: Array<[string, string]> = [
    ['/stats/api/v1/counters', 'counters'], ['/stats/api/v1/lines', 'sections'], ['/stats/api/v1/pages/main', 'mainPage'],
    ['/stats/api/v1/pages/transactions', 'transactionsPage'], ['/stats/api/v1/pages/contracts', 'contractsPage'],
    ['/stats/api/v1/update-status', 'updateStatus'], ['/stats/api/v1/lines/noSuchChart', 'error'],
    ['/stats/api/v1/lines/newTxns?from=0001-01-01&to=9999-12-31', 'error'],
    ...CHARTS.flatMap((id) => ['DAY', 'WEEK', 'MONTH', 'YEAR'].map((r): [string, string] => [`/stats/api/v1/lines/${id}?resolution=${r}`, 'lineChart']))
  ]
  for (const [path, definition] of cases) check(definition, path, (await get(path)).body)
  // The validator itself refuses what the document rules out.
  const counter = { id: 'x', value: '1', title: 't', units: null, description: 'd' }
  t.notOk(ajv.getSchema('stats#/definitions/counter')!({ ...counter, value: 1 }), 'a number where a string is documented')
  t.notOk(ajv.getSchema('stats#/definitions/point')!({ date: '2026-01-01', date_to: '2026-01-01', value: '1', is_approximate: false }), 'is_approximate: false is omitted')
})

// Last: it adds a block.
t.test('figures are served from memory for REFRESH_MS, then the new block shows', async (t) => {
  const totalTxns = async () => (await get('/stats/api/v1/counters')).body.counters.find((c: { id: string }) => c.id === 'totalTxns').value as string
  const mainTotal = async () => (await get('/stats/api/v1/pages/main')).body.total_transactions.value as string
  const before = await totalTxns()
  const beforeMain = await mainTotal()
  await storeBlocks(database.knex, [makeBlock(head + 1, Date.now() - 1000, [20, 21])])
  t.equal(await totalTxns(), before, 'read again at once: the figure in memory')
  t.equal(await mainTotal(), beforeMain, 'the main page too')
  const wanted = String(Number(before) + 2)
  const deadline = Date.now() + REFRESH_MS * 10
  let seen = before
  while (seen !== wanted && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    seen = await totalTxns()
  }
  t.equal(seen, wanted, 'once stale, the next read brings the new block in')
})

// Last too: it adds a block.
t.test('after a quiet spell longer than MAX_AGE_MS, the first read shows the blocks indexed meanwhile', async (t) => {
  const counter = async (id: string) => (await get('/stats/api/v1/counters')).body.counters.find((c: { id: string }) => c.id === id).value as string
  const mainTotal = async () => (await get('/stats/api/v1/pages/main')).body.total_blocks.value as string
  await counter('totalBlocks')
  await mainTotal()
  await storeBlocks(database.knex, [makeBlock(head + 2, Date.now() - 500, [22])])
  const { rows: [{ blocks }] } = await database.knex.raw<{ rows: [{ blocks: string }] }>('select count(*)::text as blocks from blocks')
  await new Promise((resolve) => setTimeout(resolve, MAX_AGE_MS + 200))
  t.equal(await counter('totalBlocks'), String(blocks), 'the counters: the first read after the spell')
  t.equal(await mainTotal(), String(blocks), 'the main page too')
})
