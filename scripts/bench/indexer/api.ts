// API responsiveness while the indexer backfills: the full app (buildApp, so
// the indexer plugin runs in the gateway's own process) on the cached chain
// and an empty database, with a steady, modest request rate at GET /health
// and at eth_chainId (answered by the gateway itself, so its latency is the
// event loop's) during the backfill, then the same load once it is idle.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildApp } from '../../../plugins/index.ts'
import { startCpuMeter, type CpuUsage } from '../../lib/cpu.ts'
import type { ApiLatency, ApiLoad, ApiTarget } from './api-load.ts'
import { chainConfig } from './chain-config.ts'
import { createBenchLogger } from './log.ts'
import { waitForIndexed } from './wait.ts'

const NS_PER_MS = 1e6
const EVENT_LOOP_RESOLUTION_MS = 10

export type EventLoopFigures = { utilization: number, delayP50Ms: number, delayP99Ms: number, delayMaxMs: number }

export type ApiPhase = { latency: ApiLatency[], eventLoop: EventLoopFigures, cpu: CpuUsage }

export type ApiRunResult = {
  /** The backfill under this load, from listen() to the head's commit. */
  backfillMs: number
  backfill: ApiPhase
  idle: ApiPhase
  idleS: number
}

export type ApiRunOptions = {
  chainDir: string
  databaseUrl: string
  head: number
  load: ApiLoad
  connections: number
  ratePerS: number
  idleS: number
  timeoutMs: number
}

export async function runApiResponsiveness (o: ApiRunOptions): Promise<ApiRunResult> {
  const config = chainConfig({ dataDir: o.chainDir, cliquePeriod: 0, databaseUrl: o.databaseUrl })
  const { log, lastWarning } = createBenchLogger()
  const app = await buildApp(config, { logger: log })
  try {
    const measure = startPhase(app.geth.supervisor?.pid)
    const startedAt = performance.now()
    // listen() makes the app ready, and onReady starts the indexer: the backfill begins here.
    await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as { port: number }
    const job = { targets: targets(`http://127.0.0.1:${port}`), connections: o.connections, ratePerS: o.ratePerS }
    await o.load.start(job)
    const doneAt = await waitForIndexed(app.indexer, o.head, { timeoutMs: o.timeoutMs, lastWarning })
    const backfillLatency = await o.load.stop()
    const backfill = { latency: backfillLatency, ...await measure.stop() }
    // Caught up, the indexer only waits for new heads: the gateway's baseline.
    const measureIdle = startPhase(app.geth.supervisor?.pid)
    await o.load.start(job)
    await sleep(o.idleS * 1000)
    const idleLatency = await o.load.stop()
    const idle = { latency: idleLatency, ...await measureIdle.stop() }
    return { backfillMs: doneAt - startedAt, backfill, idle, idleS: o.idleS }
  } finally {
    await app.close()
  }
}

function targets (base: string): ApiTarget[] {
  return [
    { name: 'GET /health', url: `${base}/health`, method: 'GET' },
    { name: 'eth_chainId', url: `${base}/rpc`, method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) }
  ]
}

function startPhase (gethPid: number | undefined) {
  const delay = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS })
  delay.enable()
  const eluBefore = performance.eventLoopUtilization()
  const cpuMeter = startCpuMeter(gethPid)
  return {
    async stop (): Promise<{ eventLoop: EventLoopFigures, cpu: CpuUsage }> {
      delay.disable()
      const utilization = performance.eventLoopUtilization(eluBefore).utilization
      const cpu = await (await cpuMeter)()
      return {
        eventLoop: {
          utilization,
          delayP50Ms: delay.percentile(50) / NS_PER_MS,
          delayP99Ms: delay.percentile(99) / NS_PER_MS,
          delayMaxMs: delay.max / NS_PER_MS
        },
        cpu
      }
    }
  }
}
