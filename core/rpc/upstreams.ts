// Other nodes of the network (RPC_UPSTREAMS) the JSON-RPC proxy may ask while
// the local Geth does not answer (core/json-rpc/failover.ts). Each is checked every interval:
// its chain ID must be ours (a node of another chain would answer with
// another chain's state), and its head (eth_blockNumber) is remembered. A node
// more than maxLagBlocks behind the best head known (ours or another
// upstream's) is not asked about `latest`: it would answer with old state as
// if it were new; it still serves calls pinned to a block it has.
import type { Logger } from '../logger.ts'
import { createRpcClient, type RpcClient } from './client.ts'

/** ok: usable; behind: only for calls pinned to a block; wrong-chain and unavailable: never. */
export type UpstreamStatus = 'ok' | 'behind' | 'wrong-chain' | 'unavailable'

export type UpstreamReport = { url: string, status: UpstreamStatus, head: number | null, used: number }

export type Upstream = {
  /** The URL without its path and query, which may carry an API key: what /health and /metrics show. */
  readonly name: string
  readonly client: RpcClient
  status: UpstreamStatus
  head: number | undefined
  /** Calls (or batches) it answered for the local node. */
  used: number
}

export type Upstreams = {
  readonly list: readonly Upstream[]
  /** A usable upstream for a call: for one at `latest`, only one within maxLagBlocks of the best head known. */
  pick (atLatest: boolean): Upstream | undefined
  /** Checks every upstream now (the timer does it every checkIntervalMs). */
  check (): Promise<void>
  report (): UpstreamReport[]
  close (): Promise<void>
}

export type UpstreamsOptions = {
  urls: readonly string[]
  chainId: number
  timeoutMs: number
  checkIntervalMs: number
  maxLagBlocks: number
  /** The local node: its head, asked at each check, is part of the best head known (the last one heard while it is down). */
  local: RpcClient
  log: Logger
}

/** Few connections each: an upstream carries load only while the local node is down. */
const UPSTREAM_CONNECTIONS = 16

export function createUpstreams (o: UpstreamsOptions): Upstreams {
  const list: Upstream[] = o.urls.map((url) => ({
    name: new URL(url).origin,
    client: createRpcClient({ url, timeoutMs: o.timeoutMs, connections: UPSTREAM_CONNECTIONS }),
    status: 'unavailable',
    head: undefined,
    used: 0
  }))
  let checking: Promise<void> | undefined
  let localHead = 0

  async function checkOne (u: Upstream): Promise<void> {
    const signal = AbortSignal.timeout(Math.min(o.timeoutMs, o.checkIntervalMs * 2))
    let next: UpstreamStatus
    try {
      const [chainId, head] = await u.client.batch<string>([{ method: 'eth_chainId', params: [] }, { method: 'eth_blockNumber', params: [] }], signal)
      u.head = Number(head)
      next = Number(chainId) !== o.chainId ? 'wrong-chain' : u.status === 'behind' ? 'behind' : 'ok'
    } catch (err) {
      next = 'unavailable'
      if (u.status !== 'unavailable') o.log.warn({ upstream: u.name, err: (err as Error).message }, 'rpc upstream: no answer')
    }
    if (next === 'wrong-chain' && u.status !== 'wrong-chain') o.log.error({ upstream: u.name, chainId: o.chainId }, 'rpc upstream: a node of another chain; never used')
    u.status = next
  }

  async function checkLocal (): Promise<void> {
    try {
      localHead = Number(await o.local.call<string>('eth_blockNumber', [], AbortSignal.timeout(o.checkIntervalMs)))
    } catch {
      // Down: the head it had stays the best known.
    }
  }

  /** ok or behind, against the best head known now (a reachable one stays as it was until judged here: its log lines mark changes). */
  function judgeLag (): void {
    const best = Math.max(localHead, ...list.map((u) => u.status === 'wrong-chain' ? 0 : u.head ?? 0))
    for (const u of list) {
      if (u.status !== 'ok' && u.status !== 'behind') continue
      const next = best - (u.head ?? 0) > o.maxLagBlocks ? 'behind' : 'ok'
      if (next !== u.status) o.log.info({ upstream: u.name, head: u.head, best }, `rpc upstream: ${next === 'behind' ? 'behind the best head; not used for latest' : 'caught up'}`)
      u.status = next
    }
  }

  async function check (): Promise<void> {
    checking ??= Promise.all([...list.map(checkOne), checkLocal()]).then(judgeLag).finally(() => { checking = undefined })
    await checking
  }

  const timer = list.length === 0 ? undefined : setInterval(() => { check().catch(() => {}) }, o.checkIntervalMs).unref()
  if (list.length > 0) check().catch(() => {})

  return {
    list,
    pick (atLatest) {
      judgeLag()
      return list.find((u) => u.status === 'ok') ?? (atLatest ? undefined : list.find((u) => u.status === 'behind'))
    },
    check,
    report: () => list.map((u) => ({ url: u.name, status: u.status, head: u.head ?? null, used: u.used })),
    async close () {
      clearInterval(timer)
      await Promise.all(list.map(async (u) => await u.client.close()))
    }
  }
}
