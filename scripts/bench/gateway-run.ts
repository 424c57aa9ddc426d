// The frame of a benchmark on the real app (gateway.ts): start it, set up its
// chain, measure with the load generator, close everything whatever happens,
// and answer the benchmarks' exit code.
import { startBenchGateway, type BenchGateway } from './gateway.ts'
import { startLoadGenerator, type LoadGenerator, type LoadJob, type LoadResult } from './load-generator.ts'

export const EXIT_SETUP_FAILED = 1
export const EXIT_BAD_RESPONSES = 2

/**
 * `setup` makes what `measure` loads; `measure` prints the report and answers
 * whether any response under load was not the expected one.
 */
export async function runGatewayBenchmark<S> (setup: (gateway: BenchGateway) => Promise<S>,
  measure: (gateway: BenchGateway, made: S, load: LoadGenerator) => Promise<{ bad: boolean }>): Promise<number> {
  let gateway: BenchGateway | undefined
  let made: S
  try {
    console.error('starting the gateway (Geth, indexer, PostgreSQL)')
    gateway = await startBenchGateway()
    made = await setup(gateway)
  } catch (err) {
    console.error(`setup failed: ${(err as Error).stack ?? String(err)}`)
    await gateway?.close()
    return EXIT_SETUP_FAILED
  }
  const load = startLoadGenerator()
  try {
    return (await measure(gateway, made, load)).bad ? EXIT_BAD_RESPONSES : 0
  } catch (err) {
    console.error(`benchmark failed: ${(err as Error).stack ?? String(err)}`)
    return EXIT_SETUP_FAILED
  } finally {
    await load.close()
    await gateway.close()
  }
}

/** The gateway's origin (its REST routes), from its /rpc endpoint. */
export const originOf = (gateway: BenchGateway): string => gateway.gatewayUrl.replace(/\/rpc$/, '')

export type GatewayLoadResult = LoadResult & { gatewayCpuMsPerRequest: number }

/**
 * A load run with the CPU this process (the gateway's: gateway.ts builds the
 * app here) spent per answered request: PostgreSQL's and Geth's are not in
 * it. On a loaded machine it drifts far less than throughput does.
 */
export async function runMeasuringCpu (load: LoadGenerator, job: LoadJob): Promise<GatewayLoadResult> {
  const before = process.cpuUsage()
  const result = await load.run(job)
  const { user, system } = process.cpuUsage(before)
  return { ...result, gatewayCpuMsPerRequest: (user + system) / 1000 / Math.max(1, result.requests) }
}
