// The soak's mixed workload: requests picked by weight — JSON-RPC reads, REST
// home-page polls, lists and details whose subjects follow a skewed popularity
// (a few hashes and addresses get most requests, as on a real explorer),
// GraphQL queries — sent either by a fixed number of loops (each sends when
// its last answer came) or at an offered rate (sent on schedule whatever the
// answers, latency counted from the scheduled time, so a slow gateway cannot
// hide its queue). Every latency and every answer that is not a success is
// recorded. JSON-RPC sends run beside them (faults/traffic.ts).
import { setTimeout as sleep } from 'node:timers/promises'
import type { Known } from '../fuzz/hostile.ts'
import type { SoakClient, SoakRequest } from './http.ts'

export type InterfaceName = 'JSON-RPC' | 'REST' | 'GraphQL'

export type InterfaceFigures = { requests: number, failures: number, notModified: number, firstFailure?: string, latenciesMs: number[] }

export type Figures = Record<InterfaceName, InterfaceFigures>

type Pick = { name: InterfaceName, weight: number, make: (random: () => number) => SoakRequest }

/** Index i of n with probability falling as 1/(i+1): a Zipf-like popularity. */
export function skewedIndex (n: number, random: () => number): number {
  let harmonic = 0
  for (let i = 1; i <= n; i++) harmonic += 1 / i
  const target = random() * harmonic
  let sum = 0
  for (let i = 0; i < n; i++) {
    sum += 1 / (i + 1)
    if (sum >= target) return i
  }
  return n - 1
}

export function createPicks (known: Known): Pick[] {
  const pick = <T>(values: T[], random: () => number): T => values[skewedIndex(values.length, random)]!
  const rpc = (method: string, params: unknown[]): SoakRequest =>
    ({ method: 'POST', path: '/rpc', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const graphql = (query: string): SoakRequest =>
    ({ method: 'POST', path: '/api/v2/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) })
  const get = (path: string): SoakRequest => ({ method: 'GET', path })
  return [
    { name: 'JSON-RPC', weight: 2, make: () => rpc('eth_blockNumber', []) },
    { name: 'JSON-RPC', weight: 2, make: (r) => rpc('eth_getBalance', [pick(known.addresses, r), 'latest']) },
    { name: 'JSON-RPC', weight: 2, make: (r) => rpc('eth_getTransactionByHash', [pick(known.transactionHashes, r)]) },
    { name: 'JSON-RPC', weight: 1, make: (r) => rpc('eth_getBlockByNumber', ['0x' + pick(known.blockNumbers, r).toString(16), false]) },
    // The home page: what every visitor's browser polls.
    { name: 'REST', weight: 2, make: () => get('/api/v2/main-page/blocks') },
    { name: 'REST', weight: 2, make: () => get('/api/v2/main-page/transactions') },
    { name: 'REST', weight: 1, make: () => get('/api/v2/stats') },
    { name: 'REST', weight: 2, make: () => get('/api/v2/transactions') },
    { name: 'REST', weight: 1, make: () => get('/api/v2/blocks') },
    { name: 'REST', weight: 3, make: (r) => get(`/api/v2/transactions/${pick(known.transactionHashes, r)}`) },
    { name: 'REST', weight: 2, make: (r) => get(`/api/v2/addresses/${pick(known.addresses, r)}`) },
    { name: 'REST', weight: 2, make: (r) => get(`/api/v2/addresses/${pick(known.addresses, r)}/transactions`) },
    { name: 'REST', weight: 1, make: (r) => get(`/api/v2/tokens/${pick(known.tokens, r)}/transfers`) },
    { name: 'GraphQL', weight: 2, make: (r) => graphql(`{ transaction(hash: "${pick(known.transactionHashes, r)}") { hash blockNumber value status } }`) },
    { name: 'GraphQL', weight: 1, make: (r) => graphql(`{ address(hash: "${pick(known.addresses, r)}") { hash fetchedCoinBalance transactions(first: 10) { edges { node { hash } } } } }`) },
    { name: 'GraphQL', weight: 1, make: (r) => graphql(`{ block(number: ${pick(known.blockNumbers, r)}) { hash number } }`) }
  ]
}

/** Success: 200 (or 304 to a revalidation) and, for JSON-RPC and GraphQL, a result or data without errors. */
function failureOf (name: InterfaceName, status: number, text: string): string | undefined {
  if (status !== 200 && status !== 304) return `HTTP ${status} ${text.slice(0, 200)}`
  if (name === 'REST') return undefined
  const body = JSON.parse(text) as { result?: unknown, error?: unknown, errors?: unknown }
  if (name === 'JSON-RPC' && !('result' in body)) return text.slice(0, 200)
  if (name === 'GraphQL' && body.errors !== undefined) return text.slice(0, 200)
  return undefined
}

export type WorkloadOptions = {
  /** Send If-None-Match with the tag last seen for a URL, as a browser or CDN revalidates. */
  revalidate?: boolean
  random?: () => number
}

export type Workload = {
  figures: Figures
  /** Stops sending, waits for the answers in flight, and gives the seconds it ran. */
  stop (): Promise<number>
}

function createFigures (): Figures {
  const empty = (): InterfaceFigures => ({ requests: 0, failures: 0, notModified: 0, latenciesMs: [] })
  return { 'JSON-RPC': empty(), REST: empty(), GraphQL: empty() }
}

function createSender (client: SoakClient, picks: Pick[], { revalidate = false, random = Math.random }: WorkloadOptions) {
  const figures = createFigures()
  const total = picks.reduce((sum, p) => sum + p.weight, 0)
  const choose = (): Pick => {
    let at = random() * total
    for (const p of picks) if ((at -= p.weight) < 0) return p
    return picks[picks.length - 1]!
  }
  /** Sends one request; its latency counts from `since` (when it was due). */
  const sendOne = async (since: number): Promise<void> => {
    const p = choose()
    const f = figures[p.name]
    let failure: string | undefined
    try {
      const response = await client.send(p.make(random), revalidate)
      failure = failureOf(p.name, response.status, response.text)
      if (response.status === 304) f.notModified++
    } catch (err) {
      failure = `no answer: ${(err as Error).message}`
    }
    f.latenciesMs.push(performance.now() - since)
    f.requests++
    if (failure !== undefined) {
      f.failures++
      f.firstFailure ??= failure
    }
  }
  return { figures, sendOne }
}

/** `concurrency` loops, each sending its next request when its last is answered, until stop(). */
export function startWorkload (client: SoakClient, picks: Pick[], concurrency: number, options: WorkloadOptions = {}): Workload {
  const { figures, sendOne } = createSender(client, picks, options)
  const startedAt = performance.now()
  const state = { running: true }
  const loops = Array.from({ length: concurrency }, async () => {
    while (state.running) await sendOne(performance.now())
  })
  return { figures, stop: async () => { state.running = false; await Promise.all(loops); return (performance.now() - startedAt) / 1000 } }
}

const TICK_MS = 5

export type OfferedWorkload = Workload & {
  /** Requests that were due while `maxInFlight` were already waiting: not sent, the rate was not sustained. */
  readonly skipped: number
}

/** `ratePerS` requests a second on schedule, at most `maxInFlight` waiting at once, until stop(). */
export function startOfferedRate (client: SoakClient, picks: Pick[], ratePerS: number, maxInFlight: number, options: WorkloadOptions = {}): OfferedWorkload {
  const { figures, sendOne } = createSender(client, picks, options)
  const startedAt = performance.now()
  const inFlight = new Set<Promise<void>>()
  const state = { running: true, due: 0, skipped: 0 }
  const scheduler = (async () => {
    while (state.running) {
      const now = performance.now()
      // A request is sent once its due time has come (not a whole interval after it: latency
      // counts from the due time, and at the idle rate an interval is 200 ms).
      for (; state.due * 1000 / ratePerS <= now - startedAt; state.due++) {
        if (inFlight.size >= maxInFlight) { state.skipped++; continue }
        const sending: Promise<void> = sendOne(startedAt + state.due * 1000 / ratePerS).finally(() => inFlight.delete(sending))
        inFlight.add(sending)
      }
      await sleep(TICK_MS)
    }
  })()
  return {
    figures,
    get skipped () { return state.skipped },
    stop: async () => {
      state.running = false
      await scheduler
      await Promise.all(inFlight)
      return (performance.now() - startedAt) / 1000
    }
  }
}

export function percentile (sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}

export type Summary = { requests: number, ratePerS: number, p50Ms: number, p99Ms: number, failures: number, notModified: number }

/** Per interface and for all together ('all'). */
export function summarize (figures: Figures, elapsedS: number): Record<InterfaceName | 'all', Summary> {
  const of = (fs: InterfaceFigures[]): Summary => {
    const sorted = fs.flatMap((f) => f.latenciesMs).sort((a, b) => a - b)
    const requests = fs.reduce((n, f) => n + f.requests, 0)
    return {
      requests,
      ratePerS: requests / elapsedS,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      failures: fs.reduce((n, f) => n + f.failures, 0),
      notModified: fs.reduce((n, f) => n + f.notModified, 0)
    }
  }
  return { 'JSON-RPC': of([figures['JSON-RPC']]), REST: of([figures.REST]), GraphQL: of([figures.GraphQL]), all: of(Object.values(figures)) }
}
