// `npm run bench:graphql`: a busy address's 50 newest transactions over GraphQL
// (`address { transactions(first: 50) }`) beside the same page over REST
// (`/api/v2/addresses/{busy}/transactions`), in one run on bench:rest's
// database of 1,000,000 transactions (filled once, then reused: rest/fill.ts).
// 32 connections each, measured in the order GraphQL, REST, REST, GraphQL so
// that load from outside that rises or falls weighs on both alike.
// Knob: BENCH_DURATION_S (10). Exit codes: 0 report printed, 1 setup failed,
// 2 some responses under load failed.
import { cpus, loadavg } from 'node:os'
import { loadConfig } from '../../core/config.ts'
import { createLogger } from '../../core/logger.ts'
import { combineHalves, startLoadGenerator, type LoadJob, type LoadResult } from './load-generator.ts'
import { printTable } from './report.ts'
import { openBenchDatabase } from './rest/fill.ts'
import { BUSY_ADDRESS, DEFAULT_SHAPE } from './rest/generate.ts'
import { startApiServer } from './graphql/server.ts'

const CONNECTIONS = 32
const WARMUP_S = 2
const SAMPLE_EVERY = 100
const PAGE = 50
const TARGETS = { maxP99Ms: 30, minRatio: 0.7 }
const EXIT_SETUP_FAILED = 1
const EXIT_BAD_RESPONSES = 2

/** The fields an explorer's address page lists for each transaction. */
const QUERY = `query ($hash: AddressHash!) {
  address(hash: $hash) {
    hash
    transactions(first: ${PAGE}) {
      edges { cursor node { hash blockNumber index fromAddressHash toAddressHash createdContractAddressHash value gas gasUsed gasPrice status nonce } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`

type Half = { api: 'graphql' | 'rest', result: LoadResult }

async function main (): Promise<number> {
  const log = createLogger({ level: 'warn' })
  const durationS = Number(process.env.BENCH_DURATION_S ?? 10)
  if (!Number.isFinite(durationS) || durationS < 2) {
    console.error(`BENCH_DURATION_S must be a number >= 2, not ${process.env.BENCH_DURATION_S}`)
    return EXIT_SETUP_FAILED
  }
  const config = loadConfig({ ...process.env, GETH_RPC_URL: '', DATA_DIR: '.' })
  console.error(`opening the benchmark database (${DEFAULT_SHAPE.blocks} blocks x ${DEFAULT_SHAPE.transactionsPerBlock} transactions; filled once, then reused)`)
  let bench: Awaited<ReturnType<typeof openBenchDatabase>>
  let server: Awaited<ReturnType<typeof startApiServer>>
  try {
    bench = await openBenchDatabase(DEFAULT_SHAPE, config.geth.cacheDir, log)
    server = await startApiServer(bench.database, config.graphql)
  } catch (err) {
    console.error(`setup failed: ${(err as Error).stack ?? String(err)}`)
    return EXIT_SETUP_FAILED
  }
  const load = startLoadGenerator()
  try {
    const graphqlBody = JSON.stringify({ query: QUERY, variables: { hash: BUSY_ADDRESS } })
    const jobs: Record<Half['api'], Omit<LoadJob, 'durationS'>> = {
      graphql: { url: `${server.url}/api/v2/graphql`, body: graphqlBody, expect: 'graphql', connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY },
      rest: { url: `${server.url}/api/v2/addresses/${BUSY_ADDRESS}/transactions`, connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY }
    }
    await checkAnswers(server.app, graphqlBody)
    const loadBefore = loadavg()[0]!
    const halves: Half[] = []
    for (const api of ['graphql', 'rest', 'rest', 'graphql'] as const) {
      console.error(`measuring ${api} (${WARMUP_S} s warm-up, ${durationS / 2} s)`)
      await load.run({ ...jobs[api], durationS: WARMUP_S })
      halves.push({ api, result: await load.run({ ...jobs[api], durationS: durationS / 2 }) })
    }
    const [graphqlResult, restResult] = (['graphql', 'rest'] as const).map((api) => {
      const [a, b] = halves.filter((h) => h.api === api)
      return combineHalves(a!.result, b!.result)
    }) as [LoadResult, LoadResult]
    const ratio = graphqlResult.reqPerS / restResult.reqPerS
    report(graphqlResult, restResult, ratio, { durationS, loadBefore, loadAfter: loadavg()[0]!, filled: bench.filled })
    const bad = [graphqlResult, restResult].some((r) => r.non200 + r.errors + r.sampleFailures > 0)
    return bad ? EXIT_BAD_RESPONSES : 0
  } catch (err) {
    console.error(`benchmark failed: ${(err as Error).stack ?? String(err)}`)
    return EXIT_SETUP_FAILED
  } finally {
    await load.close()
    await server.close()
    await bench.close()
  }
}

/** Both APIs must answer the same page before their speed means anything. */
async function checkAnswers (app: Awaited<ReturnType<typeof startApiServer>>['app'], graphqlBody: string): Promise<void> {
  const graphqlAnswer = (await app.inject({ method: 'POST', url: '/api/v2/graphql', headers: { 'content-type': 'application/json' }, payload: graphqlBody })).json()
  const restAnswer = (await app.inject({ method: 'GET', url: `/api/v2/addresses/${BUSY_ADDRESS}/transactions` })).json()
  const viaGraphql = (graphqlAnswer.data?.address?.transactions?.edges ?? []).map((e: { node: { hash: string } }) => e.node.hash)
  const viaRest = (restAnswer.items ?? []).map((tx: { hash: string }) => tx.hash)
  if (viaGraphql.length !== PAGE || JSON.stringify(viaGraphql) !== JSON.stringify(viaRest)) {
    throw new Error(`GraphQL and REST disagree on the busy address's first page: ${JSON.stringify(graphqlAnswer).slice(0, 300)}`)
  }
}

type RunInfo = { durationS: number, loadBefore: number, loadAfter: number, filled: string }

function report (graphql: LoadResult, rest: LoadResult, ratio: number, info: RunInfo): void {
  const ms = (v: number): string => `${v.toFixed(2)} ms`
  const mark = (pass: boolean): string => pass ? 'PASS' : 'FAIL'
  console.log(`\nGraphQL against REST: a busy address's ${PAGE} newest transactions, ${CONNECTIONS} connections, ${info.durationS} s each after ${WARMUP_S} s warm-ups, ${cpus().length} CPUs`)
  console.log(`database: ${DEFAULT_SHAPE.blocks + 1} blocks, ${DEFAULT_SHAPE.blocks * DEFAULT_SHAPE.transactionsPerBlock} transactions (${info.filled === 'now' ? 'filled now' : 'reused'}); ` +
    `load average ${info.loadBefore.toFixed(1)} before, ${info.loadAfter.toFixed(1)} after\n`)
  printTable(['API', 'req/s', 'p50', 'p99'], [
    ['GraphQL', graphql.reqPerS.toFixed(0), ms(graphql.p50Ms), ms(graphql.p99Ms)],
    ['REST', rest.reqPerS.toFixed(0), ms(rest.p50Ms), ms(rest.p99Ms)]
  ])
  console.log(`\nTargets: GraphQL p99 <= ${TARGETS.maxP99Ms} ms, GraphQL >= ${TARGETS.minRatio}x REST throughput`)
  console.log(`p99    ${mark(graphql.p99Ms <= TARGETS.maxP99Ms)} ${ms(graphql.p99Ms)}`)
  console.log(`ratio  ${mark(ratio >= TARGETS.minRatio)} ${ratio.toFixed(2)}\n`)
  console.log(JSON.stringify({ ...info, connections: CONNECTIONS, targets: TARGETS, graphql, rest, ratio }))
}

process.exit(await main())
