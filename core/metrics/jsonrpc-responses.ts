// JSON-RPC answers by method and outcome (ok or the error's code,
// core/json-rpc/outcomes.ts). Counted in a map on the hot path and handed to
// the registry when /metrics is scraped, as the cache's figures are
// (rpc-cache.ts): a labelled prom-client counter per call would cost more.
import { Counter, type Registry } from 'prom-client'

export type JsonRpcResponseCounts = { count (method: string, outcome: string): void }

export function registerJsonRpcResponses (registry: Registry): JsonRpcResponseCounts {
  const counts = new Map<string, { method: string, outcome: string, n: number }>()
  // eslint-disable-next-line no-new -- registering is the point: the registry holds it
  new Counter({
    name: 'gateway_jsonrpc_responses_total',
    help: 'JSON-RPC calls answered (each call of a batch), by method and outcome: ok, or the JSON-RPC error code',
    labelNames: ['method', 'outcome'],
    registers: [registry],
    collect () {
      this.reset()
      for (const { method, outcome, n } of counts.values()) this.labels(method, outcome).inc(n)
    }
  })
  return {
    count (method, outcome) {
      const key = method + ' ' + outcome
      const entry = counts.get(key)
      if (entry === undefined) counts.set(key, { method, outcome, n: 1 })
      else entry.n++
    }
  }
}
