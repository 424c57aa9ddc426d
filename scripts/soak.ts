// `npm run soak`: a mixed workload on a real gateway for SOAK_DURATION_S:
// JSON-RPC reads and transfers sent through it, REST lists and details with
// skewed popularity, GraphQL. Reports the rate and p50/p99 per interface, the
// gateway's RSS (after a full GC) at the start and the end, and the
// indexer's lag behind the node. Exit 0 when no request failed, the gateway
// lived, its RSS grew less than SOAK_RSS_MARGIN_MB and the index kept up;
// 1 otherwise; 2 when setup failed. Knobs: docs/hardening.md.
import { setTimeout as sleep } from 'node:timers/promises'
import { printTable } from './bench/report.ts'
import { startTransfers } from './faults/traffic.ts'
import { harvestKnown } from './fuzz/harvest.ts'
import { createHttpClient } from './fuzz/http.ts'
import { GC_ON_SIGNAL_NODE_ARGS, memoryChecks, readMemoryAfterGc } from './lib/process-memory.ts'
import { isGatewayAlive, prepareProofChain, proofSender, readIntKnob, startIndexedGateway, type Cleanups } from './lib/proof-gateway.ts'
import { EXIT_FAILED, runProofSuite } from './lib/proof-suite.ts'
import { createPicks, percentile, startWorkload, type InterfaceName } from './soak/workload.ts'

const MS_PER_S = 1000
const LAG_SAMPLE_MS = 5000
/** Blocks the index may trail the node at the end: the batch being stored. */
const MAX_FINAL_LAG_BLOCKS = 50

type Settings = { durationS: number, concurrency: number, rssMarginMiB: number, heapMarginMiB: number, chainBlocks: number, chainTransactions: number }

function readSettings (): Settings {
  return {
    durationS: readIntKnob('SOAK_DURATION_S', 600),
    concurrency: readIntKnob('SOAK_CONCURRENCY', 8),
    rssMarginMiB: readIntKnob('SOAK_RSS_MARGIN_MB', 128),
    heapMarginMiB: readIntKnob('SOAK_HEAP_MARGIN_MB', 64),
    chainBlocks: readIntKnob('SOAK_CHAIN_BLOCKS', 2000),
    chainTransactions: readIntKnob('SOAK_CHAIN_TRANSACTIONS', 4000)
  }
}

async function setUp (s: Settings, cleanups: Cleanups) {
  console.error(`soak: ${s.durationS} s, ${s.concurrency} loops; starting a gateway on a ${s.chainBlocks}-block chain`)
  const chain = await prepareProofChain(cleanups, { blocks: s.chainBlocks, transactions: s.chainTransactions, prefix: 'soak' })
  const gateway = await startIndexedGateway(cleanups, chain.env, chain.info.head, { nodeArgs: GC_ON_SIGNAL_NODE_ARGS })
  const client = createHttpClient(gateway.url, s.concurrency + 2)
  cleanups.teardown(client.close)
  return { gateway, client, known: await harvestKnown(client, chain.info.tokens) }
}

async function soak (s: Settings, { gateway, client, known }: Awaited<ReturnType<typeof setUp>>): Promise<number> {
  const memoryStart = await readMemoryAfterGc(gateway.pid, gateway.lines)
  const startedAt = Date.now()
  const transfers = startTransfers(() => gateway.url, proofSender())
  const workload = startWorkload(client, createPicks(known), s.concurrency)
  let maxLag = 0
  let lastLag = 0
  while (Date.now() - startedAt < s.durationS * MS_PER_S) {
    await sleep(Math.min(LAG_SAMPLE_MS, Math.max(0, startedAt + s.durationS * MS_PER_S - Date.now())))
    const lag = await gateway.health().then(({ body }) => Number(body.indexer?.lag_blocks ?? NaN), () => NaN)
    lastLag = lag
    if (Number.isFinite(lag)) maxLag = Math.max(maxLag, lag)
  }
  await workload.stop()
  const sent = await transfers.stop()
  const elapsedS = (Date.now() - startedAt) / MS_PER_S
  await client.close()
  const alive = await isGatewayAlive(gateway)
  const memoryEnd = alive ? await readMemoryAfterGc(gateway.pid, gateway.lines) : undefined

  console.log(`\nsoak: ${elapsedS.toFixed(0)} s, ${s.concurrency} loops, ${sent.sent} transfers sent through JSON-RPC (${sent.failed} refused)\n`)
  const rows = (Object.entries(workload.figures) as Array<[InterfaceName, typeof workload.figures['REST']]>).map(([name, f]) => {
    const sorted = f.latenciesMs.sort((a, b) => a - b)
    return { name, f, row: [name, String(f.requests), (f.requests / elapsedS).toFixed(1), `${percentile(sorted, 0.5).toFixed(1)} ms`, `${percentile(sorted, 0.99).toFixed(1)} ms`, String(f.failures)] }
  })
  printTable(['interface', 'requests', 'req/s', 'p50', 'p99', 'failures'], rows.map((r) => r.row))
  const checks: Array<[string, string, boolean]> = [
    ['requests failed', String(rows.reduce((n, r) => n + r.f.failures, 0)), rows.every((r) => r.f.failures === 0)],
    ['gateway process alive', alive ? 'yes' : 'no', alive],
    ...memoryChecks(memoryStart, memoryEnd, { rssMiB: s.rssMarginMiB, heapMiB: s.heapMarginMiB }),
    ['indexer lag (blocks)', `max ${maxLag}, at the end ${lastLag}`, Number.isFinite(lastLag) && lastLag <= MAX_FINAL_LAG_BLOCKS]
  ]
  console.log('')
  printTable(['check', 'figure', 'verdict'], checks.map(([name, figure, pass]) => [name, figure, pass ? 'PASS' : 'FAIL']))
  for (const r of rows.filter((r) => r.f.firstFailure !== undefined)) console.log(`\n${r.name}: first failure: ${r.f.firstFailure}`)
  const pass = checks.every(([, , ok]) => ok)
  console.log(`\nsoak: ${pass ? 'PASS' : 'FAIL'}`)
  return pass ? 0 : EXIT_FAILED
}

process.exit(await runProofSuite({ name: 'soak', readSettings, setUp, run: soak }))
