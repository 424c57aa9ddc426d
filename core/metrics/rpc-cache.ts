// The JSON-RPC cache's figures in /metrics (core/json-rpc/answer-cache.ts).
// Counted by the cache in plain numbers on the hot path and read here when
// /metrics is scraped: a labelled prom-client counter per hit would cost more
// than the hit.
import { Counter, Gauge, type Registry } from 'prom-client'

/** What the cache counts: AnswerCacheStats (core/json-rpc/answer-cache.ts), written out here because core/json-rpc imports the metrics. */
export type RpcCacheCounts = {
  hits: number
  misses: number
  joined: number
  bypassed: number
  reorgs: number
  headEntries: number
  headBytes: number
  entries: number
  bytes: number
}

/** `stats` answers undefined when no answers are kept (RPC_CACHE_ENABLED=false, no node WebSocket): no samples then. */
export function registerRpcCacheMetrics (registry: Registry, stats: () => RpcCacheCounts | undefined): void {
  // eslint-disable-next-line no-new -- registering is the point: the registry holds it
  new Counter({
    name: 'gateway_jsonrpc_cache_lookups_total',
    help: 'JSON-RPC calls whose answer may be kept, by outcome: hit (answered from the cache), miss (asked of Geth; joined counts the misses that shared an identical request already asked), bypassed (the cache was waiting for a head or checking a reorg)',
    labelNames: ['outcome'],
    registers: [registry],
    collect () {
      const s = stats()
      this.reset()
      if (s === undefined) return
      this.labels('hit').inc(s.hits)
      this.labels('miss').inc(s.misses)
      this.labels('joined').inc(s.joined)
      this.labels('bypassed').inc(s.bypassed)
    }
  })
  // eslint-disable-next-line no-new -- as above
  new Counter({
    name: 'gateway_jsonrpc_cache_reorgs_total',
    help: 'Reorgs the JSON-RPC cache heard (answers above the fork point dropped)',
    registers: [registry],
    collect () {
      this.reset()
      const s = stats()
      if (s !== undefined) this.inc(s.reorgs)
    }
  })
  // eslint-disable-next-line no-new -- as above
  new Gauge({
    name: 'gateway_jsonrpc_cache_bytes',
    help: 'Bytes of JSON-RPC answers kept, by lifetime: head (until the next head) or block (about a block at or below it)',
    labelNames: ['kept'],
    registers: [registry],
    collect () {
      const s = stats()
      if (s === undefined) return
      this.labels('head').set(s.headBytes)
      this.labels('block').set(s.bytes)
    }
  })
  // eslint-disable-next-line no-new -- as above
  new Gauge({
    name: 'gateway_jsonrpc_cache_entries',
    help: 'JSON-RPC answers kept, by lifetime (as gateway_jsonrpc_cache_bytes)',
    labelNames: ['kept'],
    registers: [registry],
    collect () {
      const s = stats()
      if (s === undefined) return
      this.labels('head').set(s.headEntries)
      this.labels('block').set(s.entries)
    }
  })
}
