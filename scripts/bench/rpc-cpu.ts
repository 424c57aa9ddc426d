// `npm run bench:rpc-cpu`: the gateway process's CPU per JSON-RPC request, by
// workload, through the compiled gateway (dist/, as `npm start` serves it).
// One gateway process (its own Geth on a throwaway chain, its own database)
// takes each workload in turn; its CPU over each is read from /proc, in user
// space and in the kernel apart, with Geth's beside it, less what each spends
// idle (measured just before: on a busy machine few requests are served, and
// the idle share would weigh on each). A busy machine inflates CPU per
// request too (caches, short time slices), but far less than it moves
// throughput; compared with another checkout measured in turns
// (BENCH_BASELINE), the ratio holds better still.
// Knobs: BENCH_ROUNDS (3), BENCH_DURATION_S (5 per round and workload),
// BENCH_CONNECTIONS (16), BENCH_RATE_LIMIT (off: bench:rpc's setting; `on`
// counts every request against a limit too high to reach), BENCH_ONLY (the
// workloads whose name starts with it), BENCH_CPU_PROFILE (a directory: each
// gateway writes a --cpu-prof profile there when it stops), BENCH_BASELINE
// (another checkout, compiled with `node scripts/launch.mjs --build` there).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { JsonRpcProvider, Wallet } from 'ethers'
import { CHAIN_ID } from '../../core/config.ts'
import { setTimeout as sleep } from 'node:timers/promises'
import type { GatewayProcess } from '../lib/gateway-process.ts'
import { startBenchGatewayProcess } from './gateway-process-run.ts'
import { processCpuSplit } from '../lib/cpu.ts'
import { median, readInt } from './figures.ts'
import { startLoadGenerator, type LoadJob } from './load-generator.ts'
import { printTable } from './report.ts'
// @ts-expect-error plain JavaScript without declarations: it runs before anything is compiled
import { buildIfStale } from '../launch.mjs'

const ROUNDS = readInt('BENCH_ROUNDS', 3)
const DURATION_S = readInt('BENCH_DURATION_S', 5)
const CONNECTIONS = readInt('BENCH_CONNECTIONS', 16)
const RATE_LIMITED = process.env.BENCH_RATE_LIMIT === 'on'
const PROFILE_DIR = process.env.BENCH_CPU_PROFILE
const BASELINE = process.env.BENCH_BASELINE
const SAMPLE_EVERY = 100
/** Seconds with no load before each measured run, for what each process spends idle. */
const IDLE_S = 2
const MS_PER_S = 1000
const RECEIPT_POLL_MS = 100
const HEAD_HEARD_MS = 500
const US_PER_S = 1e6
/** An address with nothing at it: calls and balances read empty state, which costs the gateway what any other does. */
const ADDRESS = '0x00000000000000000000000000000000000000aa'
const BALANCE_OF = '0x70a08231'

const body = (method: string, params: unknown[]): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
type Workload = { name: string, job: (url: string, round: number) => Omit<LoadJob, 'connections' | 'durationS' | 'sampleEvery'> }
const ALL_WORKLOADS: Workload[] = [
  { name: 'eth_blockNumber (kept)', job: (url) => ({ url, body: body('eth_blockNumber', []) }) },
  { name: 'eth_chainId (from memory)', job: (url) => ({ url, body: body('eth_chainId', []) }) },
  { name: 'eth_getBalance latest (kept)', job: (url) => ({ url, body: body('eth_getBalance', [ADDRESS, 'latest']) }) },
  { name: 'batch of 4 (kept)', job: (url) => ({ url, body: `[${body('eth_blockNumber', [])},${body('eth_chainId', [])},${body('eth_getBalance', [ADDRESS, 'latest'])},${body('eth_gasPrice', [])}]` }) },
  {
    name: 'cold eth_call (to Geth)',
    job: (url, round) => ({ url, countedBody: { template: body('eth_call', [{ to: ADDRESS, data: BALANCE_OF + '{{n}}' }, 'latest']), firstN: round * 2 ** 40 } })
  }
]

/** BENCH_ONLY=<prefix>: the workloads whose name starts with it (eth_blockNumber, cold), for a profile of one. */
const WORKLOADS = ALL_WORKLOADS.filter((w) => w.name.startsWith(process.env.BENCH_ONLY ?? ''))
const cleanups: Array<() => unknown> = []
const generator = startLoadGenerator()
type Measured = { gatewayUs: number, userUs: number, systemUs: number, gethUs: number, reqPerS: number }
type Subject = { label: string, gateway: GatewayProcess, gethPid: number }
try {
  ;(buildIfStale as () => boolean)()
  const subjects: Subject[] = [await startSubject('this checkout')]
  if (BASELINE !== undefined) subjects.push(await startSubject('baseline', BASELINE))
  // rounds[round][subject][workload]
  const rounds: Measured[][][] = []
  for (let round = 1; round <= ROUNDS; round++) {
    const figures: Measured[][] = subjects.map(() => [])
    for (const workload of WORKLOADS) {
      // In turns: whatever else the machine does weighs on each subject alike.
      for (const [i, subject] of subjects.entries()) figures[i]!.push(await measure(subject, workload, round))
    }
    rounds.push(figures)
    for (const [i, subject] of subjects.entries()) console.log(`round ${round}, ${subject.label}: ${WORKLOADS.map((w, j) => `${w.name} ${figures[i]![j]!.gatewayUs.toFixed(1)} us (user ${figures[i]![j]!.userUs.toFixed(1)})`).join(', ')}`)
  }
  const mid = (s: number, w: number, key: keyof Measured): number => median(rounds.map((r) => r[s]![w]![key]))
  printTable(['workload', ...subjects.flatMap((s) => [`${s.label}: gateway CPU per request (us)`, 'of it user', 'of it kernel', 'Geth (us)', 'requests/s (load-dependent)'])],
    WORKLOADS.map((w, i) => [w.name, ...subjects.flatMap((_s, s) => [
      ...(['gatewayUs', 'userUs', 'systemUs', 'gethUs'] as const).map((key) => mid(s, i, key).toFixed(1)), String(Math.round(mid(s, i, 'reqPerS')))
    ])]))
  console.log(`median of ${ROUNDS} rounds of ${DURATION_S} s, ${CONNECTIONS} connections, rate limit ${RATE_LIMITED ? 'on' : 'off'}`)
  if (PROFILE_DIR !== undefined) {
    for (const { gateway } of subjects) gateway.kill('SIGTERM')
    for (const { gateway } of subjects) await gateway.exited
  }
} finally {
  await generator.close()
  for (const cleanup of cleanups.reverse()) await cleanup()
}

async function measure ({ gateway, gethPid }: Subject, workload: Workload, round: number): Promise<Measured> {
  const job = { ...workload.job(`${gateway.url}/rpc`, round), connections: CONNECTIONS, sampleEvery: SAMPLE_EVERY }
  // A second of the same load first: answers kept, connections open, code optimised.
  await generator.run({ ...job, durationS: 1 })
  // What each process spends with no request (timers, the indexer, Geth's own loop), taken off what it spent under load:
  // on a busy machine few requests are served, and that share would otherwise weigh on each.
  const cpu = async (): Promise<number[]> => {
    const [gatewayCpu, gethCpu] = [await processCpuSplit(gateway.pid), await processCpuSplit(gethPid)]
    return [gatewayCpu!.userS, gatewayCpu!.systemS, gethCpu!.userS + gethCpu!.systemS]
  }
  const idleFrom = await cpu()
  const idleStartedMs = performance.now()
  await sleep(IDLE_S * MS_PER_S)
  const idleTo = await cpu()
  const idlePerS = idleTo.map((to, i) => (to - idleFrom[i]!) * MS_PER_S / (performance.now() - idleStartedMs))
  const result = await generator.run({ ...job, durationS: DURATION_S })
  const after = await cpu()
  if (result.non200 > 0 || result.errors > 0 || result.sampleFailures > 0) throw new Error(`${workload.name}: ${result.non200} non-200, ${result.errors} errors, ${result.sampleFailures} bad answers (${result.firstFailure ?? ''})`)
  const perRequest = (i: number): number => Math.max(0, after[i]! - idleTo[i]! - idlePerS[i]! * result.seconds) * US_PER_S / result.requests
  return { gatewayUs: perRequest(0) + perRequest(1), userUs: perRequest(0), systemUs: perRequest(1), gethUs: perRequest(2), reqPerS: result.reqPerS }
}

async function startSubject (label: string, root?: string): Promise<Subject> {
  const account = Wallet.createRandom()
  const gateway = await startGateway(root, account.address)
  const gethPid = Number((await readFile(join(gateway.dataDir, 'geth.pid'), 'utf8')).split('\n')[0])
  await sealBlock(`${gateway.url}/rpc`, account.privateKey)
  return { label, gateway, gethPid }
}

/**
 * One transfer, one block (clique period 0): answers at `latest` are kept
 * from the first head the gateway hears, and with none heard every call
 * would go to Geth.
 */
async function sealBlock (url: string, privateKey: string): Promise<void> {
  const provider = new JsonRpcProvider(url, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1, pollingInterval: RECEIPT_POLL_MS })
  try {
    const receipt = await (await new Wallet(privateKey, provider).sendTransaction({ to: ADDRESS, value: 1n })).wait()
    if (receipt?.status !== 1) throw new Error('the transfer that seals a first block failed')
  } finally {
    provider.destroy()
  }
  // The gateway hears the head through Geth's newHeads, a moment after the receipt.
  await sleep(HEAD_HEARD_MS)
}

async function startGateway (root: string | undefined, funded: string): Promise<GatewayProcess> {
  const nodeArgs = ['--max-semi-space-size=32', ...(PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`])]
  // The load comes from one address: counted, it is counted against a limit it cannot reach.
  const limits: Record<string, string> = RATE_LIMITED ? { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PUBLIC_PER_MIN: '1000000000' } : {}
  const allocFile = join(await mkdtemp(join(tmpdir(), 'tg-bench-rpc-cpu-alloc-')), 'alloc.json')
  cleanups.push(async () => await rm(dirname(allocFile), { recursive: true, force: true }))
  await writeFile(allocFile, JSON.stringify({ [funded]: { balance: '0x' + (10n ** 21n).toString(16) } }))
  return await startBenchGatewayProcess('rpc-cpu', cleanups, { ...limits, GENESIS_ALLOC: allocFile }, { entry: 'compiled', nodeArgs, ...(root === undefined ? {} : { root }) })
}
