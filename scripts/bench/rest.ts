// `npm run bench:rest`: what the REST API costs on a big index. A database of
// 1,000,000 transactions over 100,000 blocks and 10,000 addresses is filled
// through the indexer's store stage (no node; cached between runs, see
// rest/fill.ts). Then, per endpoint, 32 concurrent callers load the REST
// routes over HTTP (autocannon, in its own process) and, back to back, the
// same SQL straight through pg (the floor). Knobs: BENCH_DURATION_S (10),
// BENCH_FLOOR_POOL (connections of the floor's pool; default the gateway's own:
// PostgreSQL on 2 CPUs serves 32 callers faster through 8 or 10 sessions than 32),
// BENCH_BLOCKS (100,000; fewer, for a loaded machine, get a database of their
// own and a deep page 90 % deep), BENCH_PARTS (`endpoints,access`: the endpoints against their SQL; the access
// layer's cost on the cheapest endpoint, rest-access.ts).
// Exit codes: 0 report printed (targets met or not), 1 setup failed, 2 some
// responses under load failed.
import { cpus, loadavg } from 'node:os'
import pg from 'pg'
import { loadConfig } from '../../core/config.ts'
import { POOL_MAX, preparedStatementPool } from '../../core/db/index.ts'
import { createLogger } from '../../core/logger.ts'
import { combineHalves as combine, startLoadGenerator, type LoadGenerator, type LoadJob, type LoadResult } from './load-generator.ts'
import { openBenchDatabase } from './rest/fill.ts'
import { BUSY_ADDRESS, DEFAULT_SHAPE, transactionHashOf, type ChainShape } from './rest/generate.ts'
import { captureStatements, startRestServer, type RestServer, type Statement } from './rest/server.ts'
import { runFloor } from './rest-floor.ts'
import { cpuPerRequest, deepOverFirst, printJson, printReport, type EndpointFigures, type RestBenchSettings } from './rest-report.ts'
import { startCpuMeter, type CpuUsage } from '../lib/cpu.ts'
import { readInt } from './figures.ts'
import { accessFigures, measureAccessRounds, printAccessReport, type AccessFigures } from './access.ts'
import { startRestAccessServers, type RestAccessInstance } from './rest-access.ts'

const CONNECTIONS = 32
const WARMUP_S = 2
/** How deep the deep page is, as a share of every transaction: 900,000 rows of the default million. */
const DEEP_SHARE = 0.9
const SAMPLE_EVERY = 100
const EXIT_SETUP_FAILED = 1
const EXIT_BAD_RESPONSES = 2

const PARTS = ['endpoints', 'access'] as const
type Part = typeof PARTS[number]

function readParts (): Set<Part> {
  const raw = process.env.BENCH_PARTS
  if (raw === undefined || raw === '') return new Set(PARTS)
  const parts = raw.split(',')
  const unknown = parts.filter((p) => !(PARTS as readonly string[]).includes(p))
  if (unknown.length > 0) throw new Error(`BENCH_PARTS: unknown part(s) ${unknown.join(', ')}; known: ${PARTS.join(', ')}`)
  return new Set(parts as Part[])
}

type Endpoint = { name: string, path: string }

/** The five endpoints, with keys read from the filled database: a cursor 900,000 rows deep, a mid-chain block and transaction. */
async function endpoints (server: RestServer, shape: ChainShape): Promise<Endpoint[]> {
  const knex = server.app.db.knex
  const deepRows = Math.floor(shape.blocks * shape.transactionsPerBlock * DEEP_SHARE)
  // Setup only: the cursor of the page that starts after the first 900,000 rows.
  const deep = await knex('transactions').orderBy([{ column: 'block_number', order: 'desc' }, { column: 'transaction_index', order: 'desc' }])
    .offset(deepRows - 1).first('block_number', 'transaction_index')
  const middle = Math.floor(shape.blocks / 2)
  return [
    { name: 'transactions, first page', path: '/api/v2/transactions' },
    { name: `transactions, ${deepRows.toLocaleString('en')} deep`, path: `/api/v2/transactions?block_number=${deep.block_number}&index=${deep.transaction_index}&items_count=50` },
    { name: 'busy address transactions', path: `/api/v2/addresses/${BUSY_ADDRESS}/transactions` },
    { name: 'block by number', path: `/api/v2/blocks/${middle}` },
    // Index 5 of every block is a token transfer: the detail reads its transfers too.
    { name: 'transaction by hash', path: `/api/v2/transactions/${transactionHashOf(middle, 5)}` }
  ]
}

type Half = { gateway: LoadResult, floor: LoadResult, gatewayCpu: CpuUsage, floorCpu: CpuUsage, loadAverage: number }

/** Half a measurement of one endpoint: through the gateway, then its SQL through pg, back to back. */
async function measureHalf (server: RestServer, load: LoadGenerator, pool: pg.Pool, path: string, statements: Statement[], durationS: number, postmasterPid: number | undefined): Promise<Half> {
  const job = { url: server.url + path, connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY }
  await load.run({ ...job, durationS: WARMUP_S })
  const [gateway, gatewayCpu] = await metered(postmasterPid, async () => await load.run({ ...job, durationS }))
  await runFloor(pool, statements, CONNECTIONS, WARMUP_S)
  const [floor, floorCpu] = await metered(postmasterPid, async () => await runFloor(pool, statements, CONNECTIONS, durationS))
  return { gateway, floor, gatewayCpu, floorCpu, loadAverage: loadavg()[0]! }
}

/** A run and the CPU this process and PostgreSQL spent during it. */
async function metered<T> (postmasterPid: number | undefined, run: () => Promise<T>): Promise<[T, CpuUsage]> {
  const stop = await startCpuMeter(undefined, postmasterPid)
  const result = await run()
  return [result, await stop()]
}

/**
 * Every endpoint in two halves; the first and the deep page in the order
 * first, deep, deep, first, so that load from outside that rises or falls
 * during the run weighs on both alike and their ratio stays fair.
 */
async function measureAll (server: RestServer, load: LoadGenerator, pool: pg.Pool, list: Endpoint[], durationS: number, postmasterPid: number | undefined): Promise<{ figures: EndpointFigures[], loadAverages: number[] }> {
  const prepared = []
  for (const endpoint of list) {
    const { statements, body } = await captureStatements(server, endpoint.path)
    const items = (JSON.parse(body) as { items?: unknown[] }).items
    if (items !== undefined && items.length !== 50) throw new Error(`${endpoint.path} answered ${items.length} items, not a full page`)
    prepared.push({ endpoint, statements, halves: [] as Half[] })
  }
  const order = [0, 1, 1, 0, ...list.slice(2).flatMap((_, i) => [i + 2, i + 2])]
  const halfS = durationS / 2
  for (const i of order) {
    const { endpoint, statements, halves } = prepared[i]!
    console.error(`measuring ${endpoint.name} (half ${halves.length + 1} of 2): through the gateway, then its ${statements.length} SQL statement(s) through pg (${WARMUP_S} + ${halfS} s each)`)
    halves.push(await measureHalf(server, load, pool, endpoint.path, statements, halfS, postmasterPid))
  }
  return {
    figures: prepared.map(({ endpoint, statements, halves }) => {
      const [a, b] = halves
      const gateway = combine(a!.gateway, b!.gateway)
      const floor = combine(a!.floor, b!.floor)
      const cpu = {
        gateway: cpuPerRequest(halves.map((h) => ({ cpu: h.gatewayCpu, requests: h.gateway.requests }))),
        floor: cpuPerRequest(halves.map((h) => ({ cpu: h.floorCpu, requests: h.floor.requests })))
      }
      return { ...endpoint, statements: statements.length, gateway, floor, ratio: gateway.reqPerS / floor.reqPerS, cpu }
    }),
    loadAverages: prepared.map(({ halves }) => Math.max(...halves.map((h) => h.loadAverage)))
  }
}

/**
 * The access layer's cost on the cheapest endpoint (a block by number, where
 * it weighs most): req/s through servers without and with it, round by round.
 */
async function benchmarkAccess (bench: Awaited<ReturnType<typeof openBenchDatabase>>, load: LoadGenerator, endpoint: Endpoint, durationS: number): Promise<{ figures: AccessFigures, skipped: string[] }> {
  const access = await startRestAccessServers(bench.database)
  try {
    const job = (instance: RestAccessInstance): LoadJob => ({ url: instance.url + endpoint.path, headers: instance.headers, connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY, durationS: WARMUP_S })
    const rounds = await measureAccessRounds(endpoint.name, access.instances, durationS, {
      warm: async (instance) => { await load.run(job(instance)) },
      measure: async (instance, sliceS) => await load.run({ ...job(instance), durationS: sliceS })
    })
    return { figures: accessFigures(endpoint.path, rounds), skipped: access.skipped }
  } finally {
    await access.close()
  }
}

async function main (): Promise<number> {
  // Warnings only: the report goes to stdout, progress to stderr.
  const log = createLogger({ level: 'warn' })
  let durationS: number
  let floorPool: number
  let parts: Set<Part>
  let shape: ChainShape
  let bench: Awaited<ReturnType<typeof openBenchDatabase>>
  let server: RestServer
  try {
    durationS = readInt('BENCH_DURATION_S', 10)
    floorPool = readInt('BENCH_FLOOR_POOL', POOL_MAX)
    parts = readParts()
    shape = { ...DEFAULT_SHAPE, blocks: readInt('BENCH_BLOCKS', DEFAULT_SHAPE.blocks) }
    const { cacheDir } = loadConfig({ ...process.env, GETH_RPC_URL: '', DATA_DIR: '.' }).geth
    console.error(`opening the benchmark database (${shape.blocks} blocks x ${shape.transactionsPerBlock} transactions; filled once, then reused)`)
    bench = await openBenchDatabase(shape, cacheDir, log)
    server = await startRestServer(bench.database)
  } catch (err) {
    console.error(`setup failed: ${(err as Error).stack ?? String(err)}`)
    return EXIT_SETUP_FAILED
  }
  const load = startLoadGenerator()
  // The floor's sessions are set up as the gateway's prepared-statement pool's are: the same SQL, planned alike.
  const pool = preparedStatementPool(bench.url, floorPool)
  try {
    const loadBefore = loadavg()[0]!
    const list = await endpoints(server, shape)
    let failed = false
    if (parts.has('endpoints')) {
      const { figures, loadAverages } = await measureAll(server, load, pool, list, durationS, bench.postmasterPid)
      const settings: RestBenchSettings = {
        durationS,
        warmupS: WARMUP_S,
        connections: CONNECTIONS,
        floorPool,
        gatewayPool: (server.app.db.knex.client as { pool: { max: number } }).pool.max,
        cpus: cpus().length,
        blocks: shape.blocks,
        transactions: shape.blocks * shape.transactionsPerBlock,
        addresses: shape.addresses,
        filled: bench.filled,
        fillS: bench.fillS,
        loadBefore
      }
      const deep = deepOverFirst(figures[0]!, figures[1]!)
      printReport(figures, deep, settings, loadAverages)
      printJson(figures, deep, settings)
      failed = figures.some((f) => f.gateway.non200 + f.gateway.errors + f.gateway.sampleFailures + f.floor.errors > 0)
    }
    if (parts.has('access')) {
      const access = await benchmarkAccess(bench, load, list.find((e) => e.name === 'block by number')!, durationS)
      printAccessReport(access, loadavg()[0])
      console.log(JSON.stringify({ durationS, warmupS: WARMUP_S, connections: CONNECTIONS, cpus: cpus().length, blocks: shape.blocks, loadBefore, access: access.figures }))
    }
    return failed ? EXIT_BAD_RESPONSES : 0
  } catch (err) {
    console.error(`benchmark failed: ${(err as Error).stack ?? String(err)}`)
    return EXIT_SETUP_FAILED
  } finally {
    await pool.end()
    await load.close()
    await server.close()
    await bench.close()
  }
}

process.exit(await main())
