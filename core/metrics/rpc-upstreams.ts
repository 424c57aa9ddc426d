// RPC_UPSTREAMS in /metrics (core/rpc/upstreams.ts): each upstream's state and
// head, and how many calls it answered for the local node. Read when /metrics
// is scraped, as the JSON-RPC cache's figures are (rpc-cache.ts).
import { Counter, Gauge, type Registry } from 'prom-client'

/** What core/rpc/upstreams.ts reports, written out here as rpc-cache.ts does for the cache. */
export type RpcUpstreamFigures = { url: string, status: string, head: number | null, used: number }

const STATUSES = ['ok', 'behind', 'wrong-chain', 'unavailable']

export function registerRpcUpstreamMetrics (registry: Registry, report: () => RpcUpstreamFigures[]): void {
  // eslint-disable-next-line no-new -- registering is the point: the registry holds it
  new Gauge({
    name: 'gateway_jsonrpc_upstream_status',
    help: 'Each RPC_UPSTREAMS node\'s state at its last check: 1 for the state it is in (ok, behind: not used for latest, wrong-chain, unavailable), 0 for the others',
    labelNames: ['upstream', 'status'],
    registers: [registry],
    collect () {
      for (const u of report()) for (const status of STATUSES) this.labels(u.url, status).set(u.status === status ? 1 : 0)
    }
  })
  // eslint-disable-next-line no-new -- as above
  new Gauge({
    name: 'gateway_jsonrpc_upstream_head',
    help: 'Each RPC_UPSTREAMS node\'s head (eth_blockNumber) at its last answer',
    labelNames: ['upstream'],
    registers: [registry],
    collect () {
      for (const u of report()) if (u.head !== null) this.labels(u.url).set(u.head)
    }
  })
  // eslint-disable-next-line no-new -- as above
  new Counter({
    name: 'gateway_jsonrpc_upstream_calls_total',
    help: 'Requests to the node (a call or a batch) an RPC_UPSTREAMS node answered because the local Geth did not',
    labelNames: ['upstream'],
    registers: [registry],
    collect () {
      this.reset()
      for (const u of report()) this.labels(u.url).inc(u.used)
    }
  })
}
