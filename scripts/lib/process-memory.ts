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

/** RSS after two full collections (the second frees what finalizers of the first released). */
export async function readRssAfterGc (pid: number): Promise<number> {
  for (let i = 0; i < 2; i++) {
    process.kill(pid, 'SIGUSR2')
    await sleep(SETTLE_MS)
  }
  return await readRssBytes(pid)
}

export const toMiB = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1)
