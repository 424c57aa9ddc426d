// Loaded into the gateway by the proof suites (`node --expose-gc --import
// tsx --import ./scripts/lib/gc-on-signal.ts scripts/start.ts`): SIGUSR2 runs
// a full garbage collection, so that the memory measured after a run is what
// is still held, not garbage V8 has not collected yet.
const gc = (globalThis as { gc?: () => void }).gc
if (typeof gc === 'function') process.on('SIGUSR2', () => gc())
