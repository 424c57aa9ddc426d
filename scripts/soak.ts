// `npm run soak`: a mixed workload on a real gateway for SOAK_DURATION_S —
// JSON-RPC reads and transfers sent through it, REST home-page polls, lists
// and details with skewed popularity, GraphQL, WebSocket newHeads
// subscribers — in phases: latency at a low rate (idle), offered rates
// stepped up to the highest the gateway sustains, the skewed workload with
// and without If-None-Match (what the head-keyed ETag cache gains), and the
// rest of the time at the rate found. A rate is
// sustained when its p99 stays within 3x the idle p99 and the index keeps
// within SOAK_MAX_LAG_BLOCKS of the node through it. Reports the rate,
// p50/p99 per interface, the gateway's RSS (after a full GC) at the start
// and the end with its trend, and the indexer's lag. Exit 0 when no request
// failed, the gateway lived, its memory held and the index kept up; 1
// otherwise; 2 when setup failed. Knobs: docs/hardening.md.
import { loadavg } from 'node:os'
import { startTransfers } from './faults/traffic.ts'
import { harvestKnown } from './fuzz/harvest.ts'
import { createHttpClient } from './fuzz/http.ts'
import { GC_ON_SIGNAL_NODE_ARGS, memoryChecks, readMemoryAfterGc } from './lib/process-memory.ts'
import { isGatewayAlive, prepareProofChain, proofSender, readIntKnob, startIndexedGateway, type Cleanups } from './proof/proof-gateway.ts'
import { EXIT_FAILED, runProofSuite } from './proof/proof-suite.ts'
import { createSoakClient } from './soak/http.ts'
import { compareRevalidation, highestSustained, phaseDurations, runOffered, stepRates } from './soak/phases.ts'
import { printSoakReport } from './soak/report.ts'
import { startSampler } from './soak/samples.ts'
import { startHeadSubscribers } from './soak/subscribers.ts'
import { createPicks } from './soak/workload.ts'

type Settings = {
  durationS: number
  concurrency: number
  startRatePerS: number
  idleRatePerS: number
  maxLagBlocks: number
  transferIntervalMs: number
  subscribers: number
  rssMarginMiB: number
  heapMarginMiB: number
  chainBlocks: number
  chainTransactions: number
}

function readSettings (): Settings {
  return {
    durationS: readIntKnob('SOAK_DURATION_S', 600),
    concurrency: readIntKnob('SOAK_CONCURRENCY', 8),
    startRatePerS: readIntKnob('SOAK_START_RATE', 20),
    idleRatePerS: readIntKnob('SOAK_IDLE_RATE', 5),
    maxLagBlocks: readIntKnob('SOAK_MAX_LAG_BLOCKS', 1, 0),
    transferIntervalMs: readIntKnob('SOAK_TRANSFER_INTERVAL_MS', 100, 0),
    subscribers: readIntKnob('SOAK_SUBSCRIBERS', 4, 0),
    rssMarginMiB: readIntKnob('SOAK_RSS_MARGIN_MB', 128),
    heapMarginMiB: readIntKnob('SOAK_HEAP_MARGIN_MB', 64),
    chainBlocks: readIntKnob('SOAK_CHAIN_BLOCKS', 2000),
    chainTransactions: readIntKnob('SOAK_CHAIN_TRANSACTIONS', 4000)
  }
}

async function setUp (s: Settings, cleanups: Cleanups) {
  console.error(`soak: ${s.durationS} s; starting a gateway on a ${s.chainBlocks}-block chain`)
  const chain = await prepareProofChain(cleanups, { blocks: s.chainBlocks, transactions: s.chainTransactions, prefix: 'soak' })
  const gateway = await startIndexedGateway(cleanups, chain.env, chain.info.head, { nodeArgs: GC_ON_SIGNAL_NODE_ARGS })
  const harvester = createHttpClient(gateway.url, 2)
  const known = await harvestKnown(harvester, chain.info.tokens)
  await harvester.close()
  // Enough connections for the offered rates' requests in flight.
  const client = createSoakClient(gateway.url, 64)
  cleanups.teardown(client.close)
  return { gateway, client, picks: createPicks(known) }
}

async function soak (s: Settings, { gateway, client, picks }: Awaited<ReturnType<typeof setUp>>): Promise<number> {
  const d = phaseDurations(s.durationS)
  const log = (line: string): void => console.error(line)
  const loadStart = loadavg()
  const memoryStart = await readMemoryAfterGc(gateway.pid, gateway.lines)
  const startedAt = performance.now()
  const sampler = startSampler(gateway)
  const subscribers = await startHeadSubscribers(gateway.url, s.subscribers)
  const transfers = startTransfers(() => gateway.url, proofSender(), s.transferIntervalMs)

  // Not measured: the first requests of each kind compile code paths and fill the database's caches.
  sampler.setPhase('warm-up')
  await runOffered(client, picks, s.idleRatePerS * 2, d.idleS)
  sampler.setPhase('idle')
  const idle = await runOffered(client, picks, s.idleRatePerS, d.idleS)
  log(`soak: idle (${s.idleRatePerS}/s): p99 ${idle.summary.all.p99Ms.toFixed(1)} ms`)
  sampler.setPhase('stepping')
  const steps = await stepRates(client, picks, { startPerS: s.startRatePerS, stepS: d.stepS, budgetS: d.steppingBudgetS, idleP99Ms: idle.summary.all.p99Ms, maxLagBlocks: s.maxLagBlocks, sampler, log })
  const best = highestSustained(steps)
  sampler.setPhase('compare')
  const comparison = await compareRevalidation(client, picks, gateway.pid, { concurrency: s.concurrency, halfS: d.compareS })
  const sustainedS = Math.max(1, s.durationS - (performance.now() - startedAt) / 1000)
  const sustainedPerS = best?.offeredPerS ?? s.idleRatePerS
  log(`soak: ${sustainedS.toFixed(0)} s at ${sustainedPerS.toFixed(0)}/s`)
  sampler.setPhase('sustained')
  const sustained = await runOffered(client, picks, sustainedPerS, sustainedS)

  const sent = await transfers.stop()
  const heard = subscribers.stop()
  await sampler.stop()
  await client.close()
  const alive = await isGatewayAlive(gateway)
  const memoryEnd = alive ? await readMemoryAfterGc(gateway.pid, gateway.lines) : undefined
  const pass = printSoakReport({
    settings: s,
    elapsedS: (performance.now() - startedAt) / 1000,
    load: [loadStart, loadavg()],
    idle: { ...idle, offeredPerS: s.idleRatePerS },
    steps,
    best,
    sustained: { ...sustained, offeredPerS: sustainedPerS },
    comparison,
    samples: sampler.samples,
    transfers: sent,
    heard,
    alive,
    memory: memoryChecks(memoryStart, memoryEnd, { rssMiB: s.rssMarginMiB, heapMiB: s.heapMarginMiB })
  })
  return pass ? 0 : EXIT_FAILED
}

process.exit(await runProofSuite({ name: 'soak', readSettings, setUp, run: soak }))
