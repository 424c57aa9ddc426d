// Runs Geth as a child process: waits until its RPC answers, restarts it with
// capped backoff when it dies, and stops it with SIGTERM then SIGKILL.
import { readFile, rm, writeFile } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { EventEmitter } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { execa, type ResultPromise } from 'execa'
import type { Logger } from '../core/logger.ts'
import type { RpcClient } from '../core/rpc/client.ts'
import { GethStartFailedError } from '../core/errors.ts'
import { restartDelayMs } from '../core/restart-backoff.ts'
import { realClock, type Clock, type ClockTimer } from '../core/clock.ts'
import { forwardGethLogLine } from './log-lines.ts'
import { waitForRpc } from './ready.ts'

const READY_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 15_000
const ORPHAN_EXIT_TIMEOUT_MS = 30_000
/** A run this long counts as healthy: the next crash starts the backoff afresh. */
const STABLE_RUN_MS = 60_000
const LOG_TAIL_LINES = 30

export type GethSupervisorOptions = {
  bin: string
  args: string[]
  rpc: RpcClient
  log: Logger
  /** Lets a new supervisor kill a Geth orphaned by a gateway that was killed with -9. */
  pidFile: string
  /** Marks our own Geth in /proc/<pid>/cmdline before killing an orphan. */
  gethDir: string
  /** Only these reach Geth: it reads GETH_* variables as flags, and ours must not leak into it. */
  env: Readonly<Record<string, string>>
  readyTimeoutMs?: number
  stopTimeoutMs?: number
  /** Times runs and the restart backoff; real timers unless a test fakes them. */
  clock?: Clock
}

export type GethSupervisor = EventEmitter & {
  start (): Promise<void>
  stop (): Promise<void>
  readonly pid: number | undefined
  readonly restarts: number
}

type Child = ResultPromise<{ reject: false, buffer: false }>

export function createGethSupervisor (o: GethSupervisorOptions): GethSupervisor {
  const log = o.log
  const readyTimeoutMs = o.readyTimeoutMs ?? READY_TIMEOUT_MS
  const clock = o.clock ?? realClock
  const events = new EventEmitter()
  let child: Child | undefined
  let stopping = false
  let restarts = 0
  let failuresInARow = 0
  let restartTimer: ClockTimer | undefined
  let tail: string[] = []

  function spawn (): Child {
    tail = []
    const proc = execa(o.bin, o.args, {
      reject: false,
      buffer: false,
      stdin: 'ignore',
      cleanup: true,
      // Its own process group: a Ctrl-C in the terminal reaches the gateway only,
      // which stops the indexer before Geth instead of Geth dying under it.
      detached: true,
      extendEnv: false,
      env: o.env
    }) as Child
    for (const stream of [proc.stdout, proc.stderr]) {
      createInterface({ input: stream! }).on('line', (line) => {
        tail = [...tail.slice(-(LOG_TAIL_LINES - 1)), line]
        forwardGethLogLine(log, line)
      })
    }
    const startedAt = clock.now()
    proc.then((result) => onExit(proc, result, clock.now() - startedAt))
    if (proc.pid !== undefined) writeFile(o.pidFile, String(proc.pid)).catch(() => {})
    return proc
  }

  function onExit (proc: Child, result: { exitCode?: number, signal?: string, failed: boolean, message?: string }, ranMs: number): void {
    if (proc !== child) return
    child = undefined
    events.emit('exit', result)
    if (stopping) return
    failuresInARow = ranMs >= STABLE_RUN_MS ? 1 : failuresInARow + 1
    const delayMs = restartDelayMs(failuresInARow)
    log.warn({ exit_code: result.exitCode, signal: result.signal, ran_ms: ranMs, restart_in_ms: delayMs, last_output: tail.slice(-5) },
      'geth exited unexpectedly; restarting')
    restartTimer = clock.setTimeout(async () => await restart().catch(() => {}), delayMs)
  }

  async function restart (): Promise<void> {
    if (stopping) return
    restarts++
    try {
      await runUntilReady()
      log.info({ restarts, geth_pid: child?.pid }, 'geth is back')
      events.emit('restarted')
    } catch (err) {
      // The exit handler schedules the next attempt once the child is gone.
      log.warn({ err }, 'geth restart did not become ready')
      child?.kill('SIGKILL')
    }
  }

  async function runUntilReady (): Promise<void> {
    const proc = spawn()
    child = proc
    let exited: string | undefined
    proc.then((r) => { exited = `geth exited (code ${r.exitCode ?? r.signal}) before its RPC answered` })
    await waitForRpc(o.rpc, { timeoutMs: readyTimeoutMs, isGivingUp: () => exited })
    events.emit('ready')
  }

  async function start (): Promise<void> {
    stopping = false
    await killOrphan(o.pidFile, o.gethDir, log)
    try {
      await runUntilReady()
    } catch (err) {
      const output = tail.slice(-10).join('\n')
      stopping = true
      if (child) await terminate(child)
      throw new GethStartFailedError(`${(err as Error).message}\n${output}`)
    }
    log.info({ geth_pid: child?.pid, rpc: o.rpc.url }, 'geth is ready')
  }

  async function terminate (proc: Child): Promise<void> {
    proc.kill('SIGTERM')
    const stopped = await Promise.race([proc.then(() => true), sleep(o.stopTimeoutMs ?? STOP_TIMEOUT_MS, false, { ref: false })])
    if (!stopped) {
      log.warn('geth did not stop after SIGTERM; sending SIGKILL')
      proc.kill('SIGKILL')
      await proc
    }
  }

  async function stop (): Promise<void> {
    stopping = true
    clock.clear(restartTimer)
    if (child) await terminate(child)
    await rm(o.pidFile, { force: true })
  }

  // defineProperties, not Object.assign: assign would copy the getters' values once.
  return Object.defineProperties(Object.assign(events, { start, stop }), {
    pid: { get: () => child?.pid },
    restarts: { get: () => restarts }
  }) as GethSupervisor
}

/** Kills a Geth left running on our data directory by a gateway that died with -9. */
async function killOrphan (pidFile: string, gethDir: string, log: Logger): Promise<void> {
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim())
  if (!Number.isInteger(pid) || pid <= 0) return
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
  if (!cmdline.includes(gethDir)) return
  log.warn({ geth_pid: pid }, 'killing a geth left running by an earlier gateway')
  process.kill(pid, 'SIGKILL')
  // Its data directory stays locked until the kernel has torn it down, which
  // takes seconds for a large Geth on a busy machine: starting before that
  // fails with "datadir already used by another process". Its files (and
  // their locks) are closed only after its memory is released, when
  // /proc/<pid>/cmdline already reads empty: it is gone once it is a zombie
  // (its parent, the killed gateway, is not there to reap it) or no more.
  const deadline = Date.now() + ORPHAN_EXIT_TIMEOUT_MS
  while (!hasExited(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined))) {
    if (Date.now() > deadline) {
      log.warn({ geth_pid: pid }, 'the killed geth is still there; starting anyway')
      return
    }
    await sleep(50)
  }
}

/** Whether /proc/<pid>/stat (undefined: no such process) says the process has exited: its state, after the command's closing parenthesis, Z or X. */
export function hasExited (stat: string | undefined): boolean {
  if (stat === undefined) return true
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
  return state === 'Z' || state === 'X'
}
