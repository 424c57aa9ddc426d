// Loaded into the gateway by the proof suites (`node --import tsx --expose-gc
// --import ./scripts/lib/gc-on-signal.ts scripts/start.ts`): SIGUSR2 runs a
// full garbage collection, so that the memory measured after a run is what
// is still held, not garbage V8 has not collected yet, and prints the heap
// figures as a JSON line (RSS alone also counts memory the allocator keeps
// after freeing it, such as large request bodies').
const gc = (globalThis as { gc?: () => void }).gc
if (typeof gc === 'function') {
  process.on('SIGUSR2', () => {
    gc()
    const { heapUsed, external, arrayBuffers } = process.memoryUsage()
    process.stderr.write(JSON.stringify({ msg: 'gc', heap_used: heapUsed, external, array_buffers: arrayBuffers }) + '\n')
  })
}
