// `npm run faults`: faults injected into a real gateway (a child process on
// a copy of a generated chain, with embedded PostgreSQL), one scenario after
// another on the same DATA_DIR, each ending in a verdict row: the gateway
// killed mid-backfill, Geth killed under JSON-RPC load (without and with an
// upstream node that answers meanwhile), PostgreSQL down,
// a reorg, an API key revoked under the sockets it opened, the gateway killed
// while following the head, 1,000 idle connections from one address, two
// oversized verification uploads, and the database's disk full.
// Exit 0 when none failed, 1 otherwise, 2 when setup failed.
// Knobs and what each row means: docs/hardening.md.
import { printTable } from './bench/report.ts'
import { createFaultContext, type FaultContext, type ScenarioResult } from './faults/context.ts'
import { gatewayKillFollowing, gatewayKillMidBackfill } from './faults/gateway-kill.ts'
import { diskFull } from './faults/disk-full.ts'
import { gethKill } from './faults/geth-kill.ts'
import { gethKillUpstream } from './faults/geth-kill-upstream.ts'
import { idleConnections } from './faults/idle-connections.ts'
import { postgresDown } from './faults/postgres-down.ts'
import { reorg } from './faults/reorg.ts'
import { revokedKeySockets } from './faults/revoked-key.ts'
import { uploadSize } from './faults/upload-size.ts'
import { unknownKeys } from './faults/unknown-keys.ts'
import { isGatewayAlive, prepareProofChain, proofSender, readIntKnob, type Cleanups } from './proof/proof-gateway.ts'
import { EXIT_FAILED, runProofSuite } from './proof/proof-suite.ts'

const MS_PER_S = 1000

type Settings = {
  chainBlocks: number
  chainTransactions: number
  postgresDownS: number
  diskFullS: number
  reorgDepth: number
  rpcTimeoutMs: number
  timeoutS: number
  only: Set<string> | undefined
}

type Scenario = { id: string, run (context: FaultContext, chainHead: number, s: Settings): Promise<ScenarioResult> }

/** In this order: the backfill kill needs the empty index and starts the first gateway. */
const SCENARIOS: Scenario[] = [
  { id: 'gateway-kill-backfill', run: async (c, head) => await gatewayKillMidBackfill(c, head) },
  { id: 'geth-kill', run: async (c) => await gethKill(c) },
  { id: 'geth-kill-upstream', run: async (c) => await gethKillUpstream(c) },
  { id: 'postgres-down', run: async (c, _head, s) => await postgresDown(c, s.postgresDownS) },
  { id: 'reorg', run: async (c, _head, s) => await reorg(c, s.reorgDepth) },
  { id: 'revoked-key', run: async (c) => await revokedKeySockets(c) },
  { id: 'gateway-kill-head', run: async (c) => await gatewayKillFollowing(c) },
  { id: 'idle-connections', run: async (c) => await idleConnections(c) },
  { id: 'upload-size', run: async (c) => await uploadSize(c) },
  { id: 'unknown-keys', run: async (c) => await unknownKeys(c) },
  // Last: it leaves the database on a tmpfs until the cleanups.
  { id: 'disk-full', run: async (c, _head, s) => await diskFull(c, s.diskFullS) }
]

function readSettings (): Settings {
  const only = process.env.FAULTS_ONLY
  const settings = {
    chainBlocks: readIntKnob('FAULTS_CHAIN_BLOCKS', 2000),
    chainTransactions: readIntKnob('FAULTS_CHAIN_TRANSACTIONS', 4000),
    postgresDownS: readIntKnob('FAULTS_PG_DOWN_S', 5),
    diskFullS: readIntKnob('FAULTS_DISK_FULL_S', 10),
    reorgDepth: readIntKnob('FAULTS_REORG_DEPTH', 6),
    rpcTimeoutMs: readIntKnob('FAULTS_RPC_TIMEOUT_MS', 5000, 100),
    timeoutS: readIntKnob('FAULTS_TIMEOUT_S', 300),
    only: only === undefined || only === '' ? undefined : new Set(only.split(',').map((id) => id.trim()))
  }
  const unknown = [...settings.only ?? []].filter((id) => !SCENARIOS.some((s) => s.id === id))
  if (unknown.length > 0) throw new Error(`FAULTS_ONLY names no scenario: ${unknown.join(', ')} (there are ${SCENARIOS.map((s) => s.id).join(', ')})`)
  return settings
}

async function setUp (s: Settings, cleanups: Cleanups): Promise<{ context: FaultContext, chainHead: number }> {
  console.error(`faults: preparing a ${s.chainBlocks}-block chain with embedded PostgreSQL`)
  const chain = await prepareProofChain(cleanups, { blocks: s.chainBlocks, transactions: s.chainTransactions, prefix: 'faults', embedded: true })
  const env = { ...chain.env, RPC_TIMEOUT_MS: String(s.rpcTimeoutMs) }
  const sender = proofSender()
  const context = createFaultContext(cleanups, { dataDir: chain.dataDir, env, sender, rpcTimeoutMs: s.rpcTimeoutMs, timeoutMs: s.timeoutS * MS_PER_S })
  return { context, chainHead: chain.info.head }
}

async function runScenarios (s: Settings, { context, chainHead }: { context: FaultContext, chainHead: number }): Promise<number> {
  const results: ScenarioResult[] = []
  for (const scenario of SCENARIOS) {
    // The backfill scenario starts the first gateway; without it, start one here.
    if (scenario.id !== 'gateway-kill-backfill' && context.gateway === undefined) await context.startGateway()
    if (s.only !== undefined && !s.only.has(scenario.id)) continue
    console.error(`faults: ${scenario.id}`)
    results.push(await runScenario(scenario, context, chainHead, s))
  }
  return report(results)
}

/** A scenario that throws fails with the error; a gateway it left dead is started again for the next. */
async function runScenario (scenario: Scenario, context: FaultContext, chainHead: number, s: Settings): Promise<ScenarioResult> {
  const startedAt = Date.now()
  let result: ScenarioResult
  try {
    result = await scenario.run(context, chainHead, s)
  } catch (err) {
    result = { id: scenario.id, name: scenario.id, verdict: 'FAIL', figures: [], problems: [(err as Error).message], seconds: Math.round((Date.now() - startedAt) / MS_PER_S) }
  }
  const alive = context.gateway !== undefined && await isGatewayAlive(context.gateway)
  if (!alive && context.gateway !== undefined) {
    result.problems.push('the gateway was not running after the scenario')
    result.verdict = 'FAIL'
    await context.killGateway().catch(() => {})
    await context.startGateway()
  }
  return result
}

function report (results: ScenarioResult[]): number {
  console.log('')
  printTable(['scenario', 'verdict', 'time'], results.map((r) => [r.name, r.verdict, `${r.seconds} s`]), 2)
  for (const r of results) {
    console.log(`\n${r.name}:\n  ${r.figures.join('\n  ')}`)
    if (r.problems.length > 0) console.log(`  FAILED:\n    ${r.problems.join('\n    ')}`)
  }
  const pass = results.every((r) => r.verdict !== 'FAIL')
  console.log(`\nfaults: ${pass ? 'PASS' : 'FAIL'}`)
  return pass ? 0 : EXIT_FAILED
}

process.exit(await runProofSuite({ name: 'faults', readSettings, setUp, run: runScenarios }))
