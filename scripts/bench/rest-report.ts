// What bench:rest prints: a table for people, then one JSON line with every
// figure for machines (`npm run bench:rest | tail -n 1`).
import type { CpuUsage } from '../lib/cpu.ts'
import type { LoadResult } from './load-generator.ts'
import { printTable } from './report.ts'

const US_PER_S = 1e6

export const TARGETS = { maxDeepOverFirst: 1.2, maxP99Ms: 25, minRatio: 0.5 }

export type EndpointFigures = {
  name: string
  path: string
  statements: number
  gateway: LoadResult
  floor: LoadResult
  /** Gateway req/s over raw-SQL req/s. */
  ratio: number
  /** What a request cost in CPU, through the gateway and as raw SQL. */
  cpu: { gateway: CpuPerRequest, floor: CpuPerRequest }
}

/**
 * CPU microseconds per request: of this process (the gateway serving, or the
 * floor's pg client sending) and of PostgreSQL, null where its processes
 * cannot be read (DATABASE_URL's server). Less at the mercy of a shared
 * machine than p99: a noisy neighbour stretches latencies, not CPU per request.
 */
export type CpuPerRequest = { processUs: number, postgresUs: number | null }

/** Runs' CPU over their requests, all runs together. */
export function cpuPerRequest (runs: Array<{ cpu: CpuUsage, requests: number }>): CpuPerRequest {
  const requests = runs.reduce((n, r) => n + r.requests, 0)
  const perRequest = (seconds: number): number => requests === 0 ? Number.NaN : seconds * US_PER_S / requests
  const postgresKnown = runs.every((r) => typeof r.cpu.postgresCores === 'number')
  return {
    processUs: perRequest(runs.reduce((s, r) => s + r.cpu.gatewayCores * r.cpu.wallS, 0)),
    postgresUs: postgresKnown ? perRequest(runs.reduce((s, r) => s + r.cpu.postgresCores! * r.cpu.wallS, 0)) : null
  }
}

export type RestBenchSettings = {
  durationS: number
  warmupS: number
  connections: number
  floorPool: number
  gatewayPool: number
  cpus: number
  blocks: number
  transactions: number
  addresses: number
  filled: string
  fillS: number
  /** The machine's 1-minute load average before the benchmark started: work from outside it. */
  loadBefore: number
}

/** Cost of a request = its share of a second of throughput: deep over first is first req/s over deep req/s. */
export function deepOverFirst (first: EndpointFigures, deep: EndpointFigures): { gateway: number, floor: number } {
  return { gateway: first.gateway.reqPerS / deep.gateway.reqPerS, floor: first.floor.reqPerS / deep.floor.reqPerS }
}

export function printReport (figures: EndpointFigures[], deep: { gateway: number, floor: number }, s: RestBenchSettings, loadAverages: number[]): void {
  console.log(`\nREST API against raw SQL: ${s.connections} concurrent callers each, ${s.durationS} s per run after a ${s.warmupS} s warm-up, ${s.cpus} CPUs`)
  console.log(`database: ${s.blocks + 1} blocks, ${s.transactions} transactions, ${s.addresses} addresses (${s.filled === 'now' ? `filled in ${s.fillS.toFixed(0)} s` : 'reused'}); ` +
    `gateway pool ${s.gatewayPool} connections, floor pool ${s.floorPool}`)
  // The benchmark alone keeps about 3 runnable (gateway, PostgreSQL, load): more means others share the CPUs.
  console.log(`load average before the run: ${s.loadBefore.toFixed(1)} on ${s.cpus} CPUs\n`)
  printTable(['endpoint', 'SQL', 'gateway req/s', 'p50', 'p99', 'raw SQL req/s', 'p50', 'p99', 'ratio', 'load avg'],
    figures.map((f, i) => [f.name, String(f.statements), rate(f.gateway.reqPerS), ms(f.gateway.p50Ms), ms(f.gateway.p99Ms),
      rate(f.floor.reqPerS), ms(f.floor.p50Ms), ms(f.floor.p99Ms), f.ratio.toFixed(2), loadAverages[i]!.toFixed(1)]))
  console.log('\nCPU per request (µs): the gateway\'s process and PostgreSQL serving it; the raw-SQL floor\'s pg client and PostgreSQL\n')
  printTable(['endpoint', 'gateway', 'PostgreSQL', 'total', 'raw SQL: pg client', 'PostgreSQL', 'total'],
    figures.map((f) => [f.name, ...cpuCells(f.cpu.gateway), ...cpuCells(f.cpu.floor)]))
  console.log(`\ndeep page cost / first page cost: gateway ${deep.gateway.toFixed(2)}x, raw SQL ${deep.floor.toFixed(2)}x`)
  console.log(`\nTargets: deep page <= ${TARGETS.maxDeepOverFirst}x the first page, gateway p99 <= ${TARGETS.maxP99Ms} ms, gateway >= ${TARGETS.minRatio}x raw SQL\n`)
  printTable(['endpoint', 'p99', 'ratio'], figures.map((f) => [f.name,
    `${mark(f.gateway.p99Ms <= TARGETS.maxP99Ms)} ${ms(f.gateway.p99Ms)}`, `${mark(f.ratio >= TARGETS.minRatio)} ${f.ratio.toFixed(2)}`]))
  console.log(`deep/first  ${mark(deep.gateway <= TARGETS.maxDeepOverFirst)} ${deep.gateway.toFixed(2)}x`)
  const bad = figures.filter((f) => f.gateway.non200 + f.gateway.errors + f.gateway.sampleFailures + f.floor.errors > 0)
  for (const f of bad) {
    console.log(`WARNING ${f.name}: ${f.gateway.non200} non-200, ${f.gateway.errors} connection errors, ${f.gateway.sampleFailures} bad sampled bodies, ` +
      `${f.floor.errors} SQL errors; first: ${f.gateway.firstFailure ?? f.floor.firstFailure}`)
  }
  console.log('')
}

export function printJson (figures: EndpointFigures[], deep: { gateway: number, floor: number }, s: RestBenchSettings): void {
  console.log(JSON.stringify({ ...s, node: process.version, targets: TARGETS, deepOverFirst: deep, endpoints: figures }))
}

const rate = (perS: number): string => perS.toFixed(0)
const us = (value: number | null): string => value === null ? 'n/a' : value.toFixed(0)
const cpuCells = (c: CpuPerRequest): string[] => [us(c.processUs), us(c.postgresUs), us(c.postgresUs === null ? null : c.processUs + c.postgresUs)]
const ms = (value: number): string => `${value.toFixed(2)} ms`
const mark = (pass: boolean): string => pass ? 'PASS' : 'FAIL'
