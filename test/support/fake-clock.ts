// A clock for core/clock.ts users that moves only when a test says so:
// advance(ms) runs every timer that falls due, in order, at its own time,
// and waits for the work each one started (the promise its callback returns).
import type { Clock, ClockTimer } from '../../core/clock.ts'

type Scheduled = { id: number, at: number, fn: () => unknown, everyMs: number | undefined }

export type FakeClock = Clock & {
  /** Moves time on by `ms`, running what falls due; resolves once their work is done. */
  advance (ms: number): Promise<void>
  /** How many timers wait. */
  readonly pending: number
}

export function createFakeClock (startMs = Date.now()): FakeClock {
  let now = startMs
  let nextId = 1
  const timers = new Map<number, Scheduled>()
  const schedule = (fn: () => unknown, delayMs: number, everyMs: number | undefined): ClockTimer => {
    const id = nextId++
    timers.set(id, { id, at: now + Math.max(0, delayMs), fn, everyMs })
    return { id, unref: () => {} } as ClockTimer
  }
  const due = (until: number): Scheduled | undefined =>
    [...timers.values()].filter((s) => s.at <= until).sort((a, b) => a.at - b.at || a.id - b.id)[0]
  return {
    now: () => now,
    setTimeout: (fn, delayMs) => schedule(fn, delayMs, undefined),
    setInterval: (fn, intervalMs) => schedule(fn, intervalMs, Math.max(1, intervalMs)),
    clear: (timer) => { if (timer !== undefined) timers.delete((timer as ClockTimer & { id: number }).id) },
    async advance (ms) {
      const until = now + ms
      for (let next = due(until); next !== undefined; next = due(until)) {
        now = next.at
        if (next.everyMs === undefined) timers.delete(next.id)
        else next.at += next.everyMs
        await next.fn()
      }
      now = until
    },
    get pending () { return timers.size }
  }
}
