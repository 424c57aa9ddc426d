// `npm run bench:runtime`: what the gateway process spends per proxied
// request when run from the TypeScript sources through tsx (`npm run dev`, and
// what `npm start` ran before) against the compiled dist/ that `npm start`
// serves. Two gateway processes, each with its own chain and database, take
// the same eth_blockNumber load in turns (slices of a round alternate, as the
// other benchmarks do), and each one's CPU time over its requests is read
// from /proc. Knobs: BENCH_ROUNDS (3), BENCH_DURATION_S (10 per round and
// instance), BENCH_CONNECTIONS (16).
import type { GatewayProcess } from '../lib/gateway-process.ts'
import { startBenchGatewayProcess } from './gateway-process-run.ts'
import { processCpuSeconds } from '../lib/cpu.ts'
import { median, readInt } from './figures.ts'
import { measureInTurns, startLoadGenerator } from './load-generator.ts'
import { printTable } from './report.ts'
// @ts-expect-error plain JavaScript without declarations: it runs before anything is compiled
import { buildIfStale } from '../launch.mjs'

const ROUNDS = readInt('BENCH_ROUNDS', 3)
const DURATION_S = readInt('BENCH_DURATION_S', 10)
const CONNECTIONS = readInt('BENCH_CONNECTIONS', 16)
const SAMPLE_EVERY = 100
const US_PER_S = 1e6
const ENTRIES = ['source', 'compiled'] as const
type Entry = typeof ENTRIES[number]

const cleanups: Array<() => unknown> = []
const generator = startLoadGenerator()
try {
  ;(buildIfStale as () => boolean)()
  const gateways = {} as Record<Entry, GatewayProcess>
  for (const entry of ENTRIES) gateways[entry] = await startGateway(entry)
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })
  const rounds: Array<Record<Entry, { reqPerS: number, cpuUsPerRequest: number }>> = []
  for (let round = 1; round <= ROUNDS; round++) {
    const cpuS = { source: 0, compiled: 0 }
    const results = await measureInTurns(ENTRIES, DURATION_S, async (entry, sliceS) => {
      const before = await processCpuSeconds(gateways[entry].pid)
      const result = await generator.run({ url: `${gateways[entry].url}/rpc`, body, connections: CONNECTIONS, durationS: sliceS, sampleEvery: SAMPLE_EVERY })
      cpuS[entry] += (await processCpuSeconds(gateways[entry].pid))! - before!
      if (result.non200 > 0 || result.errors > 0 || result.sampleFailures > 0) throw new Error(`${entry}: ${result.non200} non-200, ${result.errors} errors, ${result.sampleFailures} bad answers (${result.firstFailure ?? ''})`)
      return result
    })
    const figures = Object.fromEntries(ENTRIES.map((entry, i) => [entry, { reqPerS: results[i]!.reqPerS, cpuUsPerRequest: cpuS[entry] * US_PER_S / results[i]!.requests }])) as Record<Entry, { reqPerS: number, cpuUsPerRequest: number }>
    rounds.push(figures)
    console.log(`round ${round}: tsx ${figures.source.cpuUsPerRequest.toFixed(1)} us/request (${Math.round(figures.source.reqPerS)}/s), compiled ${figures.compiled.cpuUsPerRequest.toFixed(1)} us/request (${Math.round(figures.compiled.reqPerS)}/s)`)
  }
  const mid = (entry: Entry, key: 'reqPerS' | 'cpuUsPerRequest') => median(rounds.map((r) => r[entry][key]))
  printTable(['runtime', 'gateway CPU per eth_blockNumber (us)', 'requests/s'], ENTRIES.map((entry) => [entry === 'source' ? 'sources through tsx' : 'compiled dist/', mid(entry, 'cpuUsPerRequest').toFixed(1), String(Math.round(mid(entry, 'reqPerS')))]))
  console.log(`compiled over tsx, CPU per request (median of ${ROUNDS} rounds): ${(mid('compiled', 'cpuUsPerRequest') / mid('source', 'cpuUsPerRequest')).toFixed(2)}`)
} finally {
  await generator.close()
  for (const cleanup of cleanups.reverse()) await cleanup()
}

async function startGateway (entry: Entry): Promise<GatewayProcess> {
  return await startBenchGatewayProcess(`runtime-${entry}`, cleanups, {}, { entry, nodeArgs: ['--max-semi-space-size=32'] })
}
