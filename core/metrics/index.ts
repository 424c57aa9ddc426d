// The gateway's Prometheus metrics (prom-client), one registry per instance so
// that tests and several apps in one process never share counters. Request
// timings are recorded by the interfaces through the observe* functions here;
// the node's, indexer's and database's figures are read when /metrics is scraped.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client'
import { RequestHistogram } from './request-histogram.ts'

/** Seconds; from a cached eth_chainId (~0.2 ms) to a heavy GraphQL page or eth_getLogs (seconds). */
const LATENCY_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** The label of a JSON-RPC request that named no method we serve: client text never becomes a label. */
export const INVALID_METHOD = '(invalid)'

export type GraphqlOperationType = 'query' | 'mutation' | 'subscription' | 'invalid'

/** What /metrics reads from the running parts when it is scraped; each may be absent (tests, bench). */
export type MetricsSources = {
  gethHead?: () => Promise<{ number: number, timestamp: number } | undefined>
  gethRestarts?: () => number
  indexer?: () => { role: string, indexedHead: number | null, nodeHead: number | null }
  databasePools?: () => Array<{ pool: string, used: number, idle: number, pending: number, max: number }>
}

export type Metrics = {
  /** false with METRICS_ENABLED=false: nothing is served, and the interfaces skip their timing altogether. */
  enabled: boolean
  registry: Registry
  /** Records one JSON-RPC call (each item of a batch counts) and the time its request took. */
  observeJsonRpc (method: string, seconds: number): void
  /** Records one REST (or other HTTP) request by its route pattern, never its URL. */
  observeHttp (iface: 'rest' | 'http', route: string, status: number, seconds: number): void
  observeGraphql (operation: GraphqlOperationType, status: number, seconds: number): void
  /** Rate limiting (plugins/rate-limit) counts its refusals here, by tier. */
  rateLimitRejections: Counter<'tier'>
  /** The faucet counts its drips and refusals here. */
  faucetDrips: Counter<'outcome'>
  /** The indexer's writer reports each committed batch here (blocks/s is worked out from these). */
  recordIndexedBlocks (count: number): void
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
  const indexedBlocks = new Counter({ name: 'gateway_indexer_blocks_total', help: 'Blocks this instance\'s indexer committed', registers: [registry] })
  const recentBatches: Array<{ at: number, count: number }> = []

  registerSourceGauges(registry, () => sources, recentBatches)

  return {
    enabled,
    registry,
    observeJsonRpc (method, seconds) {
      jsonRpc.observe(method, () => ({ method }), seconds)
    },
    observeHttp (iface, route, status, seconds) {
      http.observe(`${iface} ${status} ${route}`, () => ({ interface: iface, route, status: String(status) }), seconds)
    },
    observeGraphql (operation, status, seconds) {
      graphql.observe(`${operation} ${status}`, () => ({ operation, status: String(status) }), seconds)
    },
    rateLimitRejections,
    faucetDrips,
    recordIndexedBlocks (count) {
      indexedBlocks.inc(count)
      const now = Date.now()
      recentBatches.push({ at: now, count })
      while (recentBatches.length > 0 && recentBatches[0]!.at < now - BLOCKS_RATE_WINDOW_MS) recentBatches.shift()
    },
    setSources (next) { sources = next },
    async scrape () {
      return { contentType: registry.contentType, text: await registry.metrics() }
    }
  }
}

/** Gauges filled at scrape time from the node, the indexer and the pools. */
function registerSourceGauges (registry: Registry, sources: () => MetricsSources, recentBatches: Array<{ at: number, count: number }>): void {
  const gauge = (name: string, help: string, collect: (g: Gauge) => void | Promise<void>, labelNames: string[] = []): void => {
    // eslint-disable-next-line no-new -- registering is the point: the registry holds it
    new Gauge({ name, help, labelNames, registers: [registry], async collect () { this.reset(); await collect(this) } })
  }
  gauge('gateway_geth_head_block', 'The node\'s latest block number', async (g) => {
    const head = await sources().gethHead?.()
    if (head !== undefined) g.set(head.number)
  })
  gauge('gateway_geth_head_age_seconds', 'Seconds since the node\'s latest block was sealed', async (g) => {
    const head = await sources().gethHead?.()
    if (head !== undefined) g.set(Math.max(0, Date.now() / 1000 - head.timestamp))
  })
  gauge('gateway_geth_supervisor_restarts', 'Times the supervisor restarted Geth since the gateway started', (g) => {
    const restarts = sources().gethRestarts?.()
    if (restarts !== undefined) g.set(restarts)
  })
  gauge('gateway_indexer_head_block', 'Highest indexed block', (g) => {
    const head = sources().indexer?.().indexedHead
    if (head !== undefined && head !== null) g.set(head)
  })
  gauge('gateway_indexer_lag_blocks', 'Blocks the index is behind the node (as the indexer last saw the node)', (g) => {
    const status = sources().indexer?.()
    if (status?.indexedHead != null && status.nodeHead != null) g.set(Math.max(0, status.nodeHead - status.indexedHead))
  })
  gauge('gateway_indexer_writer', '1 when this instance holds the indexer lock and writes the index', (g) => {
    const status = sources().indexer?.()
    if (status !== undefined) g.set(status.role === 'writer' ? 1 : 0)
  })
  gauge('gateway_indexer_blocks_per_second', `Blocks indexed per second over the last ${BLOCKS_RATE_WINDOW_MS / 1000} s`, (g) => {
    const since = Date.now() - BLOCKS_RATE_WINDOW_MS
    const blocks = recentBatches.filter((b) => b.at >= since).reduce((n, b) => n + b.count, 0)
    g.set(blocks / (BLOCKS_RATE_WINDOW_MS / 1000))
  })
  gauge('gateway_db_pool_connections', 'Database pool connections by pool and state (used, idle, pending acquires, max)', (g) => {
    for (const p of sources().databasePools?.() ?? []) {
      g.labels(p.pool, 'used').set(p.used)
      g.labels(p.pool, 'idle').set(p.idle)
      g.labels(p.pool, 'pending').set(p.pending)
      g.labels(p.pool, 'max').set(p.max)
    }
  }, ['pool', 'state'])
}
