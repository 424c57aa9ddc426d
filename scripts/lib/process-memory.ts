// The resident memory of a process the proof suites started (the gateway),
// measured after a full collection it runs on SIGUSR2 (gc-on-signal.ts).
import { readFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'

/** Node flags after `--import tsx` that make the gateway collect garbage on SIGUSR2. */
export const GC_ON_SIGNAL_NODE_ARGS = ['--expose-gc', '--import', new URL('./gc-on-signal.ts', import.meta.url).pathname]
const SETTLE_MS = 1000
const BYTES_PER_KB = 1024

/** VmRSS from /proc, in bytes. */
export async function readRssBytes (pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status)
  if (match === null) throw new Error(`no VmRSS for pid ${pid}`)
  return Number(match[1]) * BYTES_PER_KB
}

export type MemoryAfterGc = { rss: number, heapUsed: number | undefined }

type Lines = Array<Record<string, unknown>>

/**
 * RSS and V8's used heap after two full collections (the second frees what
 * finalizers of the first released); the heap figure is the last `gc` line
 * the gateway printed (gc-on-signal.ts) among its `lines`.
 */
export async function readMemoryAfterGc (pid: number, lines: Lines): Promise<MemoryAfterGc> {
  for (let i = 0; i < 2; i++) {
    process.kill(pid, 'SIGUSR2')
    await sleep(SETTLE_MS)
  }
  const heapUsed = [...lines].reverse().find((l) => l.msg === 'gc')?.heap_used
  return { rss: await readRssBytes(pid), heapUsed: typeof heapUsed === 'number' ? heapUsed : undefined }
}

export const toMiB = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1)

export type Margins = { rssMiB: number, heapMiB: number }

/**
 * The suites' memory verdict rows [check, figure, pass]: RSS and used heap
 * after GC, start to end, each within its margin. The heap is what the
 * gateway still holds (a leak shows there); RSS adds what the allocator kept.
 */
export function memoryChecks (start: MemoryAfterGc, end: MemoryAfterGc | undefined, margins: Margins): Array<[string, string, boolean]> {
  const row = (name: string, from: number | undefined, to: number | undefined, marginMiB: number): [string, string, boolean] => {
    if (from === undefined || to === undefined) return [name, 'not measured', false]
    const growthMiB = (to - from) / 1024 / 1024
    return [name, `${toMiB(from)} -> ${toMiB(to)} MiB (${growthMiB >= 0 ? '+' : ''}${growthMiB.toFixed(1)}, margin ${marginMiB})`, growthMiB <= marginMiB]
  }
  return [row('gateway RSS after GC', start.rss, end?.rss, margins.rssMiB), row('gateway heap used after GC', start.heapUsed, end?.heapUsed, margins.heapMiB)]
}
