// What every fault scenario works with: the gateway of the moment (a child
// process a scenario may kill and start again), its DATA_DIR and chain, a
// funded sender, and the two questions each scenario ends on: did the index
// reach the node's head, and does `ops verify-index` find it identical.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Wallet } from 'ethers'
import { killLeftovers, runOps, startGatewayProcess, waitFor, type GatewayProcess } from '../lib/gateway-process.ts'
import { waitForIndexedHead, type Cleanups } from '../proof/proof-gateway.ts'
import { nodeHead } from './traffic.ts'

const SERVING_TIMEOUT_MS = 300_000
const MS_PER_S = 1000

export type FaultContext = {
  dataDir: string
  env: Record<string, string>
  /** The suite's: what a scenario sets up beyond the gateway (a mount) is undone there. */
  cleanups: Cleanups
  /** The gateway now running; replaced by startGateway(). */
  gateway: GatewayProcess
  sender: Wallet
  rpcTimeoutMs: number
  /** How long a scenario waits for recovery before it fails. */
  timeoutMs: number
  startGateway (): Promise<GatewayProcess>
  /** SIGKILL, then what a service manager stopping the unit's process group does: its Geth and PostgreSQL go too. */
  killGateway (): Promise<void>
  /** The supervised Geth's process id, from DATA_DIR/geth.pid. */
  gethPid (): Promise<number>
  /** Waits until the index holds the node's head (as it is once called); returns that head. */
  catchUp (): Promise<number>
  verify (): Promise<{ ok: boolean, summary: string }>
}

export function createFaultContext (cleanups: Cleanups, o: { dataDir: string, env: Record<string, string>, sender: Wallet, rpcTimeoutMs: number, timeoutMs: number }): FaultContext {
  const context: FaultContext = {
    ...o,
    cleanups,
    gateway: undefined as unknown as GatewayProcess,
    async startGateway () {
      context.gateway = await startGatewayProcess(cleanups, o.env, { servingTimeoutMs: SERVING_TIMEOUT_MS })
      return context.gateway
    },
    async killGateway () {
      context.gateway.kill('SIGKILL')
      await context.gateway.exited
      await killLeftovers(o.dataDir)
    },
    async gethPid () {
      return Number((await readFile(join(o.dataDir, 'geth.pid'), 'utf8')).trim())
    },
    async catchUp () {
      const head = await waitFor('the node to answer through the gateway', async () => await nodeHead(context.gateway.url), o.timeoutMs)
      await waitForIndexedHead(context.gateway, head, o.timeoutMs)
      return head
    },
    async verify () {
      const result = await runOps(['verify-index'], { DATA_DIR: o.dataDir, DATABASE_URL: '', GETH_RPC_URL: '' })
      const summary = result.stdout.split('\n').find((line) => line.startsWith('verified blocks')) ?? (result.stdout + result.stderr).slice(-300)
      return { ok: result.exitCode === 0 && summary.includes('no mismatches'), summary }
    }
  }
  return context
}

export type Verdict = 'PASS' | 'FAIL' | 'SKIP'
export type ScenarioResult = { id: string, name: string, verdict: Verdict, figures: string[], problems: string[], seconds: number }

/** Collects a scenario's figures and failed expectations. */
export function createScenarioRecord (id: string, name: string) {
  const startedAt = Date.now()
  const figures: string[] = []
  const problems: string[] = []
  return {
    figure (text: string): void { figures.push(text) },
    expect (ok: boolean, what: string): void { if (!ok) problems.push(what) },
    result (skipped?: string): ScenarioResult {
      if (skipped !== undefined) figures.push(skipped)
      const verdict: Verdict = skipped !== undefined ? 'SKIP' : problems.length === 0 ? 'PASS' : 'FAIL'
      return { id, name, verdict, figures, problems, seconds: Math.round((Date.now() - startedAt) / MS_PER_S) }
    }
  }
}

export type ScenarioRecord = ReturnType<typeof createScenarioRecord>

/** Index caught up and verify-index clean: how every scenario ends. */
export async function expectRecovered (context: FaultContext, record: ScenarioRecord): Promise<void> {
  const startedAt = Date.now()
  const head = await context.catchUp()
  record.figure(`index at the node's head ${head} ${((Date.now() - startedAt) / MS_PER_S).toFixed(1)} s after recovery began`)
  const { ok, summary } = await context.verify()
  record.figure(`verify-index: ${summary.replace(/; index head.*$/, '')}`)
  record.expect(ok, `verify-index: ${summary}`)
}
