// The soak's mixed workload: loops that each pick a request by weight —
// JSON-RPC reads, REST lists and details whose subjects follow a skewed
// popularity (a few hashes and addresses get most requests, as on a real
// explorer), GraphQL queries — and record every latency and every answer
// that is not a success. JSON-RPC sends run beside them (faults/traffic.ts).
import type { FuzzRequest, HttpClient } from '../fuzz/http.ts'
import type { Known } from '../fuzz/hostile.ts'

export type InterfaceName = 'JSON-RPC' | 'REST' | 'GraphQL'

export type InterfaceFigures = { requests: number, failures: number, firstFailure?: string, latenciesMs: number[] }

type Pick = { name: InterfaceName, weight: number, make: (random: () => number) => FuzzRequest }

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
  const rpc = (method: string, params: unknown[]): FuzzRequest =>
    ({ method: 'POST', path: '/rpc', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const graphql = (query: string): FuzzRequest =>
    ({ method: 'POST', path: '/api/v2/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) })
  return [
    { name: 'JSON-RPC', weight: 2, make: () => rpc('eth_blockNumber', []) },
    { name: 'JSON-RPC', weight: 2, make: (r) => rpc('eth_getBalance', [pick(known.addresses, r), 'latest']) },
    { name: 'JSON-RPC', weight: 2, make: (r) => rpc('eth_getTransactionByHash', [pick(known.transactionHashes, r)]) },
    { name: 'JSON-RPC', weight: 1, make: (r) => rpc('eth_getBlockByNumber', ['0x' + pick(known.blockNumbers, r).toString(16), false]) },
    { name: 'REST', weight: 2, make: () => ({ method: 'GET', path: '/api/v2/transactions' }) },
    { name: 'REST', weight: 1, make: () => ({ method: 'GET', path: '/api/v2/blocks' }) },
    { name: 'REST', weight: 3, make: (r) => ({ method: 'GET', path: `/api/v2/transactions/${pick(known.transactionHashes, r)}` }) },
    { name: 'REST', weight: 2, make: (r) => ({ method: 'GET', path: `/api/v2/addresses/${pick(known.addresses, r)}` }) },
    { name: 'REST', weight: 2, make: (r) => ({ method: 'GET', path: `/api/v2/addresses/${pick(known.addresses, r)}/transactions` }) },
    { name: 'REST', weight: 1, make: (r) => ({ method: 'GET', path: `/api/v2/tokens/${pick(known.tokens, r)}/transfers` }) },
    { name: 'REST', weight: 1, make: () => ({ method: 'GET', path: '/api/v2/stats' }) },
    { name: 'GraphQL', weight: 2, make: (r) => graphql(`{ transaction(hash: "${pick(known.transactionHashes, r)}") { hash blockNumber value status } }`) },
    { name: 'GraphQL', weight: 1, make: (r) => graphql(`{ address(hash: "${pick(known.addresses, r)}") { hash fetchedCoinBalance transactions(first: 10) { edges { node { hash } } } } }`) },
    { name: 'GraphQL', weight: 1, make: (r) => graphql(`{ block(number: ${pick(known.blockNumbers, r)}) { hash number } }`) }
  ]
}

/** Success: 200 and, for JSON-RPC and GraphQL, a result or data without errors. */
function failureOf (name: InterfaceName, status: number, text: string): string | undefined {
  if (status !== 200) return `HTTP ${status} ${text.slice(0, 200)}`
  if (name === 'REST') return undefined
  const body = JSON.parse(text) as { result?: unknown, error?: unknown, errors?: unknown }
  if (name === 'JSON-RPC' && !('result' in body)) return text.slice(0, 200)
  if (name === 'GraphQL' && body.errors !== undefined) return text.slice(0, 200)
  return undefined
}

export type Workload = { figures: Record<InterfaceName, InterfaceFigures>, stop (): Promise<void> }

/** `concurrency` loops until stop(). */
export function startWorkload (client: HttpClient, picks: Pick[], concurrency: number, random: () => number = Math.random): Workload {
  const figures: Record<InterfaceName, InterfaceFigures> = {
    'JSON-RPC': { requests: 0, failures: 0, latenciesMs: [] },
    REST: { requests: 0, failures: 0, latenciesMs: [] },
    GraphQL: { requests: 0, failures: 0, latenciesMs: [] }
  }
  const total = picks.reduce((sum, p) => sum + p.weight, 0)
  const choose = (): Pick => {
    let at = random() * total
    for (const p of picks) if ((at -= p.weight) < 0) return p
    return picks[picks.length - 1]!
  }
  const state = { running: true }
  const loops = Array.from({ length: concurrency }, async () => {
    while (state.running) {
      const p = choose()
      const f = figures[p.name]
      const startedAt = performance.now()
      let failure: string | undefined
      try {
        const response = await client.send(p.make(random))
        failure = failureOf(p.name, response.status, response.text)
      } catch (err) {
        failure = `no answer: ${(err as Error).message}`
      }
      f.latenciesMs.push(performance.now() - startedAt)
      f.requests++
      if (failure !== undefined) {
        f.failures++
        f.firstFailure ??= failure
      }
    }
  })
  return { figures, stop: async () => { state.running = false; await Promise.all(loops) } }
}

export function percentile (sorted: number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}
