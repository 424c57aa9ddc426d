// The timers of the supervisors and the sealer watchdog, behind one small
// interface so their tests can run them in fake time (test/support/fake-clock.ts)
// instead of waiting seconds. Production uses the real timers: realClock.
/** A scheduled timer, as the clock that made it hands it back. */
export type ClockTimer = { unref (): unknown }

export type Clock = {
  now (): number
  /** `fn` may return a promise: a fake clock waits for it, the real one does not. */
  setTimeout (fn: () => unknown, delayMs: number): ClockTimer
  setInterval (fn: () => unknown, intervalMs: number): ClockTimer
  /** Cancels a timeout or an interval; undefined is ignored. */
  clear (timer: ClockTimer | undefined): void
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, delayMs) => setTimeout(fn, delayMs),
  setInterval: (fn, intervalMs) => setInterval(fn, intervalMs),
  // clearTimeout and clearInterval are interchangeable in Node.
  clear: (timer) => clearTimeout(timer as NodeJS.Timeout | undefined)
}
