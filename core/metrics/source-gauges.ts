// The figures /metrics reads from the running parts when it is scraped: the
// node, the database, the indexer, the pools, the open connections, the
// faucet's balance and what is running. A source left unset (tests, bench, a
// faucet that is off) leaves its metric without a sample.
import { Counter, Gauge, type Registry } from 'prom-client'

export type BuildInfo = { version: string, chainId: number, gethVersion: string, nodeVersion: string }

/** What /metrics reads from the running parts when it is scraped; each may be absent (tests, bench). */
export type MetricsSources = {
  /** Undefined when the node does not answer (gateway_geth_up 0). */
  gethHead?: () => Promise<{ number: number, timestamp: number } | undefined>
  gethRestarts?: () => number
  databaseUp?: () => Promise<boolean>
  indexer?: () => { role: string, indexedHead: number | null, nodeHead: number | null }
  databasePools?: () => Array<{ pool: string, used: number, idle: number, pending: number, max: number }>
  /** Open WebSocket connections by interface (json-rpc, graphql, phoenix). */
  websocketConnections?: () => Iterable<[string, number]>
  /** Open TCP connections to the HTTP server, WebSockets included. */
  httpConnections?: () => Promise<number>
  /** The faucet's address and balance; undefined when the node does not answer. */
  faucetBalance?: () => Promise<{ address: string, wei: bigint } | undefined>
  buildInfo?: () => Promise<BuildInfo>
}

const WEI_PER_COIN = 1e18

/** Gauges (and the supervisor's counter) filled at scrape time from `sources`. */
export function registerSourceGauges (registry: Registry, sources: () => MetricsSources, recentBatches: Array<{ at: number, count: number }>, rateWindowMs: number): void {
  const gauge = (name: string, help: string, collect: (g: Gauge) => void | Promise<void>, labelNames: string[] = []): void => {
    // eslint-disable-next-line no-new -- registering is the point: the registry holds it
    new Gauge({ name, help, labelNames, registers: [registry], async collect () { this.reset(); await collect(this) } })
  }
  gauge('gateway_geth_up', '1 when the node answers JSON-RPC (its latest block read within 2 s), 0 when it does not', async (g) => {
    const read = sources().gethHead
    if (read !== undefined) g.set(await read() === undefined ? 0 : 1)
  })
  gauge('gateway_database_up', '1 when the database answers a query within 2 s, 0 when it does not', async (g) => {
    const read = sources().databaseUp
    if (read !== undefined) g.set(await read() ? 1 : 0)
  })
  gauge('gateway_geth_head_block', 'The node\'s latest block number', async (g) => {
    const head = await sources().gethHead?.()
    if (head !== undefined) g.set(head.number)
  })
  gauge('gateway_geth_head_age_seconds', 'Seconds since the node\'s latest block was sealed', async (g) => {
    const head = await sources().gethHead?.()
    if (head !== undefined) g.set(Math.max(0, Date.now() / 1000 - head.timestamp))
  })
  // eslint-disable-next-line no-new -- as above
  new Counter({
    name: 'gateway_geth_supervisor_restarts_total',
    help: 'Times the supervisor restarted Geth since the gateway started',
    registers: [registry],
    collect () {
      const restarts = sources().gethRestarts?.()
      this.reset()
      if (restarts !== undefined) this.inc(restarts)
    }
  })
  registerIndexerGauges(gauge, sources, recentBatches, rateWindowMs)
  gauge('gateway_db_pool_connections', 'Database pool connections by pool and state (used, idle, pending acquires, max)', (g) => {
    for (const p of sources().databasePools?.() ?? []) {
      g.labels(p.pool, 'used').set(p.used)
      g.labels(p.pool, 'idle').set(p.idle)
      g.labels(p.pool, 'pending').set(p.pending)
      g.labels(p.pool, 'max').set(p.max)
    }
  }, ['pool', 'state'])
  gauge('gateway_websocket_connections', 'Open WebSocket connections by interface: json-rpc (/ws and the JSON-RPC URLs), graphql (subscriptions), phoenix (/socket/v2/websocket)', (g) => {
    for (const [iface, open] of sources().websocketConnections?.() ?? []) g.labels(iface).set(open)
  }, ['interface'])
  gauge('gateway_http_connections', 'Open TCP connections to the HTTP server, WebSockets included', async (g) => {
    const open = await sources().httpConnections?.()
    if (open !== undefined) g.set(open)
  })
  // Labelled by the address so that it has no sample at all, rather than 0, when the faucet is off or the node does not answer.
  gauge('gateway_faucet_balance_coins', 'The faucet account\'s balance in coins, by its address (no sample when the faucet is off or the node does not answer)', async (g) => {
    const balance = await sources().faucetBalance?.()
    if (balance !== undefined) g.labels(balance.address).set(Number(balance.wei) / WEI_PER_COIN)
  }, ['address'])
  gauge('gateway_build_info', 'Always 1: what is running, in its labels (the gateway\'s version, the chain ID, Geth\'s version, Node\'s version)', async (g) => {
    const info = await sources().buildInfo?.()
    if (info !== undefined) g.labels(info.version, String(info.chainId), info.gethVersion, info.nodeVersion).set(1)
  }, ['version', 'chain_id', 'geth_version', 'node_version'])
}

type GaugeMaker = (name: string, help: string, collect: (g: Gauge) => void | Promise<void>, labelNames?: string[]) => void

function registerIndexerGauges (gauge: GaugeMaker, sources: () => MetricsSources, recentBatches: Array<{ at: number, count: number }>, rateWindowMs: number): void {
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
  gauge('gateway_indexer_blocks_per_second', `Blocks indexed per second over the last ${rateWindowMs / 1000} s`, (g) => {
    const since = Date.now() - rateWindowMs
    const blocks = recentBatches.filter((b) => b.at >= since).reduce((n, b) => n + b.count, 0)
    g.set(blocks / (rateWindowMs / 1000))
  })
}
