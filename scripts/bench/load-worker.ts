// The load generator's process: runs one autocannon job per message from its
// parent and answers with the figures. It lives outside the gateway's process
// so that sending load never competes with the gateway for its event loop.
import type { IncomingHttpHeaders } from 'node:http'
import autocannon from 'autocannon'
import type { LoadJob, LoadResult, Reply } from './load-generator.ts'

const HTTP_OK = 200
const US_PER_S = 1e6
const MS_PER_S = 1e3

type Sample = { checked: number, failed: number, firstFailure: string | undefined }

async function runJob (job: LoadJob): Promise<LoadResult> {
  const latenciesMs: number[] = []
  const statuses = new Map<number, number>()
  const sample: Sample = { checked: 0, failed: 0, firstFailure: undefined }
  let responses = 0
  let next = 0
  const paths = job.paths
  const bodies = job.bodies
  const counted = job.countedBody === undefined ? undefined : job.countedBody.template.split('{{n}}')
  let n = job.countedBody?.firstN ?? 0
  const cpuBefore = process.cpuUsage()
  const startedAt = performance.now()
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: job.url,
      ...(job.body === undefined && bodies === undefined && counted === undefined
        ? { method: 'GET', headers: job.headers }
        : { method: 'POST', headers: { 'content-type': 'application/json', ...job.headers }, body: job.body ?? bodies?.[0] ?? '' }),
      connections: job.connections,
      duration: job.durationS,
      ...(job.amount === undefined ? {} : { amount: job.amount }),
      requests: [{
        ...(paths === undefined ? {} : { setupRequest: (request: autocannon.Request) => ({ ...request, path: paths[next++ % paths.length]! }) }),
        ...(bodies === undefined ? {} : { setupRequest: (request: autocannon.Request) => ({ ...request, body: bodies[next++ % bodies.length]! }) }),
        ...(counted === undefined ? {} : { setupRequest: (request: autocannon.Request) => ({ ...request, body: counted.join((n++).toString(16).padStart(64, '0')) }) }),
        onResponse: (status: number, body: string, _context: unknown, headers: IncomingHttpHeaders | undefined) => checkSample(sample, ++responses, job, status, body, headers)
      }]
    }, (err, res) => err ? reject(err) : resolve(res))
    // autocannon's own histogram has whole milliseconds; proxy overhead is a fraction of one.
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      latenciesMs.push(ms)
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
    })
  })
  const wallS = (performance.now() - startedAt) / MS_PER_S
  const cpu = process.cpuUsage(cpuBefore)
  // A run of a fixed amount ends when its last answer arrives, not at a whole second.
  return summarise(latenciesMs, statuses, sample, job.amount === undefined ? result.duration : wallS, wallS, (cpu.user + cpu.system) / US_PER_S, result)
}

/**
 * Parses every n-th body: a JSON-RPC or GraphQL error (or a truncated body)
 * answered with 200 would otherwise count as a success. autocannon hands a
 * body over as text, which a compressed one does not survive: that one must
 * be a 200 in the encoding asked for (the benchmark checks its content apart).
 */
function checkSample (sample: Sample, n: number, job: LoadJob, status: number, body: string, headers: IncomingHttpHeaders = {}): void {
  if (n % job.sampleEvery !== 0) return
  sample.checked++
  let ok = false
  const encoding = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-encoding')?.[1]?.toString()
  if (encoding !== undefined) {
    ok = status === HTTP_OK && (job.headers?.['accept-encoding'] ?? '').includes(encoding)
    if (!ok) { sample.failed++; sample.firstFailure ??= `HTTP ${status}, content-encoding ${encoding}` }
    return
  }
  try {
    type Parsed = { result?: unknown, error?: unknown, data?: unknown, errors?: unknown }
    const parsed = JSON.parse(body) as Parsed | Parsed[]
    // A JSON-RPC batch is answered when each of its items is.
    const answered = [parsed].flat().every((item) => job.expect === 'graphql'
      ? item.data !== undefined && item.data !== null && item.errors === undefined
      : job.expect === 'json-rpc-answer'
        ? item.result !== undefined || item.error !== undefined
        : item.result !== undefined && item.error === undefined)
    ok = status === HTTP_OK && (job.body === undefined && job.bodies === undefined && job.countedBody === undefined ? true : answered)
  } catch {}
  if (ok) return
  sample.failed++
  sample.firstFailure ??= `HTTP ${status}: ${body.slice(0, 200)}`
}

function summarise (latenciesMs: number[], statuses: Map<number, number>, sample: Sample,
  durationS: number, wallS: number, cpuS: number, errors: { errors: number, timeouts: number }): LoadResult {
  const sorted = Float64Array.from(latenciesMs).sort()
  const ok = statuses.get(HTTP_OK) ?? 0
  return {
    requests: latenciesMs.length,
    reqPerS: ok / durationS,
    seconds: durationS,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    non200: latenciesMs.length - ok,
    errors: errors.errors,
    timeouts: errors.timeouts,
    sampled: sample.checked,
    sampleFailures: sample.failed,
    firstFailure: sample.firstFailure,
    loadGeneratorCores: cpuS / wallS
  }
}

/** Nearest-rank percentile of sorted values; NaN when there are none. */
function percentile (sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
}

function answer (reply: Reply): void {
  // The parent may have stopped waiting (interrupted) while a job ran.
  if (process.connected) process.send!(reply)
}

process.on('message', (job: LoadJob) => {
  runJob(job).then(
    (result) => answer({ ok: true, result }),
    (err: unknown) => answer({ ok: false, message: (err as Error).message })
  )
})
// The parent went away (crashed or done): nothing is left to measure for.
process.on('disconnect', () => process.exit(0))
// Ctrl-C reaches the whole process group: the parent decides when to stop us,
// after it has stopped waiting for a result.
process.on('SIGINT', () => {})
