// The gateway's Prometheus metrics (prom-client), one registry per instance so
// that tests and several apps in one process never share counters. Request
// timings are recorded by the interfaces through the observe* functions here;
// the node's, indexer's and database's figures are read when /metrics is scraped.
import { Counter, Registry, collectDefaultMetrics } from 'prom-client'
import { RequestHistogram } from './request-histogram.ts'
import { registerJsonRpcResponses } from './jsonrpc-responses.ts'
import { registerSourceGauges, type MetricsSources } from './source-gauges.ts'

export type { MetricsSources } from './source-gauges.ts'

/** Seconds; from a cached eth_chainId (~0.2 ms) to a heavy GraphQL page or eth_getLogs (seconds). */
const LATENCY_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** The label of a JSON-RPC request that named no method we serve: client text never becomes a label. */
export const INVALID_METHOD = '(invalid)'

export type GraphqlOperationType = 'query' | 'mutation' | 'subscription' | 'invalid'

export type Metrics = {
  /** false with METRICS_ENABLED=false: nothing is served, and the interfaces skip their timing altogether. */
  enabled: boolean
  registry: Registry
  /** Records one JSON-RPC call (each item of a batch counts), its outcome (ok or its error's code) and the time its request took. */
  observeJsonRpc (method: string, outcome: string, seconds: number): void
  /** observeJsonRpc for each call of one request (a JsonRpcReply's `methods` and `outcomes`, which share their order). */
  observeJsonRpcCalls (methods: readonly string[], outcomes: readonly string[], seconds: number): void
  /** Records one REST (or other HTTP) request by its route pattern, never its URL. */
  observeHttp (iface: 'rest' | 'http', route: string, status: number, seconds: number): void
  observeGraphql (operation: GraphqlOperationType, status: number, seconds: number): void
  /** Rate limiting (plugins/rate-limit) counts its refusals here, by tier. */
  rateLimitRejections: Counter<'tier'>
  /** The faucet counts its drips and refusals here. */
  faucetDrips: Counter<'outcome'>
  /** Contract verifications this instance ran, by result: full, partial, already-verified, or the failure's error code. */
  verifications: Counter<'result'>
  /** The indexer's writer reports each committed batch here (blocks/s is worked out from these). */
  recordIndexedBlocks (count: number): void
  /** Adds or replaces sources (the faucet's plugin adds its balance); the others are kept. */
  setSources (sources: MetricsSources): void
  /** The text format, and its content type. */
  scrape (): Promise<{ contentType: string, text: string }>
}

/** Indexing speed is averaged over this window. */
const BLOCKS_RATE_WINDOW_MS = 60_000

export function createMetrics ({ enabled }: { enabled: boolean }): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  let sources: MetricsSources = {}

  const jsonRpc = new RequestHistogram({ name: 'gateway_jsonrpc_request_duration_seconds', help: 'JSON-RPC calls by method and the time their HTTP request took (a batch\'s calls share its time)', buckets: LATENCY_BUCKETS_S, registry })
  const http = new RequestHistogram({ name: 'gateway_http_request_duration_seconds', help: 'REST and other HTTP requests by interface, route pattern and status', buckets: LATENCY_BUCKETS_S, registry })
  const graphql = new RequestHistogram({ name: 'gateway_graphql_request_duration_seconds', help: 'GraphQL HTTP requests by operation type and status', buckets: LATENCY_BUCKETS_S, registry })
  const rateLimitRejections = new Counter({ name: 'gateway_rate_limit_rejections_total', help: 'Requests refused by rate limiting, by tier', labelNames: ['tier'], registers: [registry] })
  const faucetDrips = new Counter({ name: 'gateway_faucet_drips_total', help: 'Faucet requests by outcome (sent, cooldown, refused, failed)', labelNames: ['outcome'], registers: [registry] })
  const verifications = new Counter({ name: 'gateway_verifications_total', help: 'Contract verifications this instance ran, by result: full, partial, already-verified, or the failure\'s error code', labelNames: ['result'], registers: [registry] })
  const jsonRpcResponses = registerJsonRpcResponses(registry)
  const indexedBlocks = new Counter({ name: 'gateway_indexer_blocks_total', help: 'Blocks this instance\'s indexer committed', registers: [registry] })
  const recentBatches: Array<{ at: number, count: number }> = []

  registerSourceGauges(registry, () => sources, recentBatches, BLOCKS_RATE_WINDOW_MS)
  const observeJsonRpc = (method: string, outcome: string, seconds: number): void => {
    jsonRpc.observe(method, () => ({ method }), seconds)
    jsonRpcResponses.count(method, outcome)
  }

  return {
    enabled,
    registry,
    observeJsonRpc,
    observeJsonRpcCalls (methods, outcomes, seconds) {
      for (let i = 0; i < methods.length; i++) observeJsonRpc(methods[i]!, outcomes[i]!, seconds)
    },
    observeHttp (iface, route, status, seconds) {
      http.observe(`${iface} ${status} ${route}`, () => ({ interface: iface, route, status: String(status) }), seconds)
    },
    observeGraphql (operation, status, seconds) {
      graphql.observe(`${operation} ${status}`, () => ({ operation, status: String(status) }), seconds)
    },
    rateLimitRejections,
    faucetDrips,
    verifications,
    recordIndexedBlocks (count) {
      indexedBlocks.inc(count)
      const now = Date.now()
      recentBatches.push({ at: now, count })
      while (recentBatches.length > 0 && recentBatches[0]!.at < now - BLOCKS_RATE_WINDOW_MS) recentBatches.shift()
    },
    setSources (next) { sources = { ...sources, ...next } },
    async scrape () {
      return { contentType: registry.contentType, text: await registry.metrics() }
    }
  }
}
