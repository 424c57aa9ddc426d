// The API load's process: one autocannon instance per target at a fixed rate,
// from `start` until `stop`. Outside the gateway's process, so that sending
// requests does not compete with the gateway for its event loop.
import autocannon from 'autocannon'
import type { ApiLatency, ApiTarget, WorkerMessage, WorkerReply } from './api-load.ts'

const HTTP_OK = 200
// Stopped by the parent long before; autocannon wants a limit.
const MAX_DURATION_S = 3600

type Running = { target: ApiTarget, instance: autocannon.Instance, done: Promise<void>, latenciesMs: number[], failures: number, firstFailure: string | undefined }

let running: Running[] = []

function startTarget (target: ApiTarget, connections: number, ratePerS: number): Running {
  const run: Running = { target, instance: undefined as unknown as autocannon.Instance, done: Promise.resolve(), latenciesMs: [], failures: 0, firstFailure: undefined }
  const fail = (reason: string): void => {
    run.failures++
    run.firstFailure ??= reason
  }
  run.done = new Promise<void>((resolve) => {
    run.instance = autocannon({
      url: target.url,
      method: target.method,
      ...(target.body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: target.body }),
      connections,
      overallRate: ratePerS,
      duration: MAX_DURATION_S,
      requests: [{
        onResponse: (status: number, body: string) => {
          if (status !== HTTP_OK) return fail(`HTTP ${status}: ${body.slice(0, 200)}`)
          if (target.method === 'POST' && !body.includes('"result"')) fail(`no result: ${body.slice(0, 200)}`)
        }
      }]
    }, () => resolve())
  })
  run.instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => { run.latenciesMs.push(ms) })
  run.instance.on('reqError', (err: Error) => fail(`request error: ${err.message}`))
  return run
}

async function stopAll (): Promise<ApiLatency[]> {
  const stopping = running
  running = []
  for (const run of stopping) run.instance.stop()
  await Promise.all(stopping.map((run) => run.done))
  return stopping.map(({ target, latenciesMs, failures, firstFailure }) => {
    const sorted = Float64Array.from(latenciesMs).sort()
    return {
      name: target.name,
      requests: sorted.length,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]!,
      failures,
      firstFailure
    }
  })
}

/** Nearest-rank percentile of sorted values; NaN when there are none. */
function percentile (sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
}

function answer (reply: WorkerReply): void {
  // The parent may have stopped waiting (interrupted).
  if (process.connected) process.send!(reply)
}

process.on('message', (message: WorkerMessage) => {
  if (message.type === 'start') {
    try {
      running = message.job.targets.map((target) => startTarget(target, message.job.connections, message.job.ratePerS))
      answer({ type: 'started' })
    } catch (err) {
      answer({ type: 'failed', message: (err as Error).message })
    }
    return
  }
  stopAll().then(
    (results) => answer({ type: 'done', results }),
    (err: unknown) => answer({ type: 'failed', message: (err as Error).message })
  )
})
// The parent went away (crashed or done): nothing is left to measure for.
process.on('disconnect', () => process.exit(0))
// Ctrl-C reaches the whole process group: the parent decides when to stop us.
process.on('SIGINT', () => {})
