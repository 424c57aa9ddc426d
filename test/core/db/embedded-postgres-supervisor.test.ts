// superviseEmbeddedPostgres() on a scripted server in fake time: the restart
// backoff (core/restart-backoff.ts), its reset after a healthy run, stop().
import t from 'tap'
import { EventEmitter } from 'node:events'
import type { ChildProcess } from 'node:child_process'
import pino from 'pino'
import { superviseEmbeddedPostgres, type PostgresProcessHandle } from '../../../core/db/embedded-postgres-supervisor.ts'
import { RESTART_BASE_DELAY_MS } from '../../../core/restart-backoff.ts'
import { createFakeClock } from '../../support/fake-clock.ts'

const log = pino({ level: 'silent' })
const child = () => Object.assign(new EventEmitter(), { pid: 1 }) as unknown as ChildProcess

/** A server whose start() fails `failures` times, then starts a new child; records when it was called. */
function scriptedServer (now: () => number, failures = 0) {
  const starts: number[] = []
  const server: PostgresProcessHandle & { starts: number[] } = {
    process: child(),
    starts,
    async start () {
      starts.push(now())
      if (failures-- > 0) throw new Error('shared memory still in use')
      server.process = child()
    }
  }
  return server
}

t.test('a postmaster that dies is started again after the base delay, not before', async (t) => {
  const clock = createFakeClock(0)
  const server = scriptedServer(clock.now)
  const supervisor = superviseEmbeddedPostgres(server, log, clock)
  server.process!.emit('exit', null, 'SIGKILL')
  await clock.advance(RESTART_BASE_DELAY_MS - 1)
  t.same(server.starts, [], 'not yet')
  await clock.advance(1)
  t.same(server.starts, [RESTART_BASE_DELAY_MS])
  t.equal(supervisor.restarts, 1)
  supervisor.stop()
})

t.test('failed starts are retried with the delay doubling each time', async (t) => {
  const clock = createFakeClock(0)
  const server = scriptedServer(clock.now, 3)
  const supervisor = superviseEmbeddedPostgres(server, log, clock)
  server.process!.emit('exit', 1, null)
  await clock.advance(60_000)
  // 500, then +1000, +2000, +4000: the fourth start succeeds.
  t.same(server.starts, [500, 1500, 3500, 7500])
  t.equal(supervisor.restarts, 4)
  t.equal(clock.pending, 0, 'nothing more scheduled')
  supervisor.stop()
})

t.test('a death after a healthy run starts the backoff afresh', async (t) => {
  const clock = createFakeClock(0)
  const server = scriptedServer(clock.now, 2)
  const supervisor = superviseEmbeddedPostgres(server, log, clock)
  server.process!.emit('exit', 1, null)
  await clock.advance(10_000)
  t.same(server.starts, [500, 1500, 3500])
  // Up for more than a minute, then killed again: the base delay, not 8 s.
  await clock.advance(60_000)
  server.process!.emit('exit', null, 'SIGKILL')
  await clock.advance(RESTART_BASE_DELAY_MS)
  t.same(server.starts.slice(3), [70_000 + RESTART_BASE_DELAY_MS])
  supervisor.stop()
})

t.test('stop() cancels a restart that is waiting', async (t) => {
  const clock = createFakeClock(0)
  const server = scriptedServer(clock.now)
  const supervisor = superviseEmbeddedPostgres(server, log, clock)
  const first = server.process!
  first.emit('exit', null, 'SIGKILL')
  t.equal(clock.pending, 1)
  supervisor.stop()
  t.equal(clock.pending, 0)
  await clock.advance(60_000)
  t.same(server.starts, [])
  t.equal(supervisor.restarts, 0)
})
