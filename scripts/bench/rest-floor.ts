// The floor: the SQL an endpoint runs, sent straight through pg by the same
// number of concurrent callers, with nothing else (no HTTP, no JSON). Runs in
// this process while the server idles.
import pg from 'pg'
import type { LoadResult } from './load-generator.ts'
import type { Statement } from './rest/server.ts'

const MS_PER_S = 1000

/** `connections` callers, each running the statements in order, again and again, for `durationS`. */
export async function runFloor (pool: pg.Pool, statements: Statement[], connections: number, durationS: number): Promise<LoadResult> {
  const latenciesMs: number[] = []
  let errors = 0
  let firstFailure: string | undefined
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  const deadline = started + durationS * MS_PER_S
  const caller = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const at = performance.now()
      try {
        for (const s of statements) await pool.query({ name: s.name, text: s.sql, values: s.bindings })
        latenciesMs.push(performance.now() - at)
      } catch (err) {
        errors++
        firstFailure ??= (err as Error).message
      }
    }
  }
  await Promise.all(Array.from({ length: connections }, caller))
  const wallS = (performance.now() - started) / MS_PER_S
  const cpu = process.cpuUsage(cpuBefore)
  const sorted = Float64Array.from(latenciesMs).sort()
  const at = (q: number): number => sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
  return {
    requests: latenciesMs.length,
    reqPerS: latenciesMs.length / wallS,
    seconds: wallS,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    non200: 0,
    errors,
    timeouts: 0,
    sampled: 0,
    sampleFailures: 0,
    firstFailure,
    loadGeneratorCores: (cpu.user + cpu.system) / 1e6 / wallS
  }
}
