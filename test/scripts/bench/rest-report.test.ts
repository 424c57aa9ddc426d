import { test } from 'tap'
import type { CpuUsage } from '../../../scripts/lib/cpu.ts'
import { cpuPerRequest } from '../../../scripts/bench/rest-report.ts'

const usage = (gatewayCores: number, postgresCores: number | null | undefined, wallS: number): CpuUsage =>
  ({ gatewayCores, gethCores: null, machineBusy: 0.5, wallS, ...(postgresCores === undefined ? {} : { postgresCores }) })

test('CPU per request adds up both halves before dividing', async (t) => {
  // 0.5 cores for 2 s and 0.25 cores for 4 s: 2 CPU-seconds of this process over 4,000 requests.
  const cpu = cpuPerRequest([
    { cpu: usage(0.5, 1, 2), requests: 1000 },
    { cpu: usage(0.25, 0.5, 4), requests: 3000 }
  ])
  t.equal(cpu.processUs, 500)
  t.equal(cpu.postgresUs, 1000, 'PostgreSQL: 2 + 2 CPU-seconds over 4,000 requests')
})

test('PostgreSQL\'s share is unknown when any run could not read it', async (t) => {
  t.equal(cpuPerRequest([{ cpu: usage(1, 1, 1), requests: 100 }, { cpu: usage(1, null, 1), requests: 100 }]).postgresUs, null)
  t.equal(cpuPerRequest([{ cpu: usage(1, undefined, 1), requests: 100 }]).postgresUs, null, 'not measured: an external server')
})

test('no requests: no figure, rather than infinity', async (t) => {
  t.ok(Number.isNaN(cpuPerRequest([{ cpu: usage(1, 1, 1), requests: 0 }]).processUs))
})
