// The real gateway (`node --import tsx scripts/start.ts`, or its compiled
// dist/scripts/start.js) as a child process,
// for tests and the proof suites (fuzz, faults) that kill it or watch its
// memory: its JSON log lines are parsed, its URL is read from the "serving"
// line, and teardown kills it and anything it left running.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { execa } from 'execa'

/** Where the process's teardown goes: a tap test, or a script's own list of cleanups. */
export type Teardown = { teardown (fn: () => unknown): void }

const REPO_ROOT = new URL('../../', import.meta.url).pathname
// A ceiling for a start that failed, not a target: a start that migrates a new
// database takes a few seconds on a quiet machine, and several times that with
// four test files at once on two cores.
const SERVING_TIMEOUT_MS = 180_000
const POLL_MS = 50

export type LogLine = Record<string, unknown> & { msg?: string }
export type Exit = { code: number | null, signal: NodeJS.Signals | null }

export type GatewayProcess = {
  pid: number
  /** http://127.0.0.1:<port> */
  url: string
  dataDir: string
  /** Every JSON line it logged so far (and the rest of its output as `{ text }`). */
  lines: LogLine[]
  exited: Promise<Exit>
  kill (signal: NodeJS.Signals): void
  health (): Promise<{ status: number, body: any }>
}

export type GatewayProcessOptions = {
  servingTimeoutMs?: number
  /** Node flags before the entry (`--expose-gc`, another `--import`); after `--import tsx` for the sources. */
  nodeArgs?: string[]
  /** The sources through tsx (the default), or dist/ as `npm start` serves it (compiled beforehand). */
  entry?: 'source' | 'compiled'
  /** A process group of its own, led by the gateway: a test kills the group (and the Geth it leaves) as a machine's loss would. */
  processGroup?: boolean
  /** The checkout to run (another one's dist/, a baseline to compare with); this one by default. */
  root?: string
}

/** Starts the gateway with the test's environment plus `env`, and resolves once it serves. */
export async function startGatewayProcess (t: Teardown, env: Record<string, string>, { servingTimeoutMs = SERVING_TIMEOUT_MS, nodeArgs = [], entry = 'source', processGroup = false, root = REPO_ROOT }: GatewayProcessOptions = {}): Promise<GatewayProcess> {
  const args = entry === 'source' ? ['--import', 'tsx', ...nodeArgs, 'scripts/start.ts'] : [...nodeArgs, 'dist/scripts/start.js']
  const child = spawn(process.execPath, args, {
    cwd: root,
    // info: the "serving" line carries the URL.
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: processGroup
  })
  const exited = once(child, 'exit').then(([code, signal]) => ({ code, signal }) as Exit)
  const dataDir = env.DATA_DIR!
  const isRunning = () => child.exitCode === null && child.signalCode === null
  // Teardown does not run when a test file dies of an uncaught error; 'exit' does.
  // SIGTERM, as there is no waiting here: the gateway then stops its Geth and PostgreSQL itself.
  const killOnExit = () => { if (isRunning()) child.kill('SIGTERM') }
  process.once('exit', killOnExit)
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit)
    if (isRunning()) {
      child.kill('SIGKILL')
      await exited
    }
    await killLeftovers(dataDir)
  }
  t.teardown(stop)
  const lines: LogLine[] = []
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      try {
        lines.push(JSON.parse(line))
      } catch {
        lines.push({ text: line })
      }
    })
  }
  const deadline = Date.now() + servingTimeoutMs
  let serving: LogLine | undefined
  while ((serving = lines.find((l) => typeof l.health === 'string')) === undefined) {
    if (!isRunning() || Date.now() > deadline) {
      await stop()
      throw new Error(`the gateway did not start (exit ${child.exitCode ?? child.signalCode}):\n${lines.map((l) => JSON.stringify(l)).join('\n')}`)
    }
    await sleep(POLL_MS)
  }
  const url = new URL(serving.health as string).origin
  return {
    pid: child.pid!,
    url,
    dataDir,
    lines,
    exited,
    kill: (signal) => { child.kill(signal) },
    health: async () => {
      const response = await fetch(`${url}/health`)
      return { status: response.status, body: await response.json() }
    }
  }
}

/** Polls `check` until it returns something other than undefined. */
export async function waitFor<T> (what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(POLL_MS)
  }
}

/** A gateway killed with -9 leaves Geth and embedded PostgreSQL running on its DATA_DIR. */
export async function killLeftovers (dataDir: string): Promise<void> {
  for (const [pidFile, dir, signal] of [
    [join(dataDir, 'geth.pid'), join(dataDir, 'geth'), 'SIGKILL'],
    [join(dataDir, 'postgres', 'postmaster.pid'), join(dataDir, 'postgres'), 'SIGQUIT']
  ] as const) {
    const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0])
    if (!Number.isInteger(pid) || pid <= 0) continue
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
    if (!cmdline.includes(dir)) continue
    process.kill(pid, signal)
    // A zombie's cmdline reads empty.
    for (let i = 0; i < 100 && await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '') !== ''; i++) await sleep(POLL_MS)
  }
}

export type OpsResult = { exitCode: number, stdout: string, stderr: string }

/** Runs `npm run ops -- <args>` the way npm does, with the test's environment plus `env`. */
export async function runOps (args: string[], env: Record<string, string>): Promise<OpsResult> {
  const result = await execa(process.execPath, ['--import', 'tsx', 'scripts/ops.ts', ...args], {
    cwd: REPO_ROOT,
    env: { LOG_LEVEL: 'warn', ...env },
    reject: false
  })
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) }
}
