// What the soak watches beside its load, every few seconds and as each phase
// begins: the indexer's lag behind the node (/health) and the gateway's
// resident memory, each sample tagged with the phase it fell in, so the
// verdict can read the lag of each phase (a short one gets its sample too)
// and the memory's trend over the long one.
import { readRssBytes } from '../lib/process-memory.ts'
import type { GatewayProcess } from '../lib/gateway-process.ts'

const SAMPLE_MS = 2000

export type Sample = { phase: string, atS: number, lagBlocks: number, rssBytes: number }

export type Sampler = { samples: Sample[], setPhase (phase: string): void, stop (): Promise<void> }

export function startSampler (gateway: GatewayProcess): Sampler {
  const samples: Sample[] = []
  const startedAt = performance.now()
  const state = { phase: 'setup', running: true }
  let wake: () => void = () => {}
  const loop = (async () => {
    while (state.running) {
      const phase = state.phase
      const lagBlocks = await gateway.health().then(({ body }) => Number(body.indexer?.lag_blocks ?? NaN), () => NaN)
      const rssBytes = await readRssBytes(gateway.pid).catch(() => NaN)
      samples.push({ phase, atS: (performance.now() - startedAt) / 1000, lagBlocks, rssBytes })
      await new Promise<void>((resolve) => { wake = resolve; setTimeout(resolve, SAMPLE_MS) })
    }
  })()
  return {
    samples,
    setPhase: (phase) => { state.phase = phase; wake() },
    stop: async () => { state.running = false; wake(); await loop }
  }
}

/** Least-squares slope of RSS over time, MiB a minute; 0 with fewer than two samples. */
export function rssSlopeMiBPerMin (samples: Sample[]): number {
  const points = samples.filter((s) => Number.isFinite(s.rssBytes))
  if (points.length < 2) return 0
  const meanT = points.reduce((a, s) => a + s.atS, 0) / points.length
  const meanR = points.reduce((a, s) => a + s.rssBytes, 0) / points.length
  const num = points.reduce((a, s) => a + (s.atS - meanT) * (s.rssBytes - meanR), 0)
  const den = points.reduce((a, s) => a + (s.atS - meanT) ** 2, 0)
  return den === 0 ? 0 : num / den * 60 / 1024 / 1024
}
