// The JSON-RPC proxy's client: the local node, and while it does not answer
// (refused, reset, timed out: RpcUnavailableError, as while the supervisor
// restarts Geth) an upstream of the same network (upstreams.ts). A JSON-RPC
// error the local node answered is its answer and never goes elsewhere.
//
// After a failure the local node is skipped for LOCAL_RETRY_MS, so that a
// node that hangs costs one timeout, not one per request; then it is asked
// first again. Answers that came from an upstream carry its name (`upstream`)
// so that the answer cache never keeps them: the cache's heads are the local
// node's, and an upstream's answer for `latest` may be of another head.
import type { Logger } from '../logger.ts'
import { planCall } from './cache-plan.ts'
import { TRACE_METHODS } from './trace-options.ts'
import { RpcUnavailableError, type RawRpcResponse, type RpcCall, type RpcClient, type RpcItemAnswer } from '../rpc/client.ts'
import type { Upstream, Upstreams } from '../rpc/upstreams.ts'

/** How long after a failure calls go straight to an upstream before the local node is tried again. */
export const LOCAL_RETRY_MS = 500

/**
 * Never sent elsewhere: a filter lives on the node that made it (one made on
 * an upstream would be gone when the local node is back), and anything that
 * is not a read or eth_sendRawTransaction stays with the local node. Traces
 * and the pool's status too: an upstream (another instance's public
 * endpoint) need not serve them, and its pool is not ours.
 */
const LOCAL_ONLY = new Set(['eth_newFilter', 'eth_newBlockFilter', 'eth_newPendingTransactionFilter', 'eth_getFilterChanges',
  'eth_getFilterLogs', 'eth_uninstallFilter', 'eth_sendTransaction', 'eth_subscribe', 'eth_unsubscribe', ...TRACE_METHODS, 'txpool_status'])

export type FailoverClient = RpcClient & {
  /** True from a failure of the local node until it answers again: the answer cache stays suspended meanwhile. */
  localDown (): boolean
}

export type FailoverOptions = {
  local: RpcClient
  upstreams: Upstreams
  log: Logger
  /** Called once each time the local node stops answering (and calls may go to an upstream). */
  onLocalDown? (): void
}

export function createFailoverClient (o: FailoverOptions): FailoverClient {
  let downSince: number | undefined
  let skipUntil = 0

  function noteDown (err: RpcUnavailableError): void {
    skipUntil = Date.now() + LOCAL_RETRY_MS
    if (downSince !== undefined) return
    downSince = Date.now()
    o.log.warn({ err: err.message }, 'rpc upstream: the local node does not answer; reads and eth_sendRawTransaction go to an upstream')
    o.onLocalDown?.()
  }

  function noteUp (): void {
    if (downSince === undefined) return
    o.log.info({ downMs: Date.now() - downSince }, 'rpc upstream: the local node answers again')
    downSince = undefined
  }

  /**
   * The local node's answer, or the upstream's for calls that may go there; the local error when none may.
   * `calls` is read only on failover: the hot path never parses a body twice.
   */
  async function withFailover<T> (calls: () => RpcCall[], local: () => Promise<T>, elsewhere: (u: Upstream) => Promise<T>): Promise<T> {
    if (Date.now() >= skipUntil) {
      try {
        const answer = await local()
        noteUp()
        return answer
      } catch (err) {
        if (!(err instanceof RpcUnavailableError)) throw err
        noteDown(err)
        const upstream = pickFor(calls())
        if (upstream === undefined) throw err
        return await use(upstream, elsewhere)
      }
    }
    const upstream = pickFor(calls())
    if (upstream !== undefined) return await use(upstream, elsewhere)
    // Not one that may go elsewhere, or no upstream usable: the local node again, which may be back.
    skipUntil = 0
    return await withFailover(calls, local, elsewhere)
  }

  function pickFor (calls: RpcCall[]): Upstream | undefined {
    const mayGo = calls.length > 0 && calls.every((c) => !LOCAL_ONLY.has(c.method))
    return mayGo ? o.upstreams.pick(calls.some(isAtLatest)) : undefined
  }

  async function use<T> (upstream: Upstream, elsewhere: (u: Upstream) => Promise<T>): Promise<T> {
    upstream.used++
    return await elsewhere(upstream)
  }

  async function send (body: string, signal?: AbortSignal, maxBytes?: number): Promise<RawRpcResponse> {
    return await withFailover(() => callsOf(body), async () => await o.local.send(body, signal, maxBytes),
      async (u) => ({ ...await u.client.send(body, signal, maxBytes), upstream: u.name }))
  }

  async function batchAnswers (calls: RpcCall[], signal?: AbortSignal): Promise<RpcItemAnswer[]> {
    return await withFailover(() => calls, async () => await o.local.batchAnswers(calls, signal),
      async (u) => (await u.client.batchAnswers(calls, signal)).map((a) => ({ ...a, upstream: u.name })))
  }

  async function call<T> (method: string, params: unknown[] = [], signal?: AbortSignal): Promise<T> {
    return await withFailover(() => [{ method, params }], async () => await o.local.call<T>(method, params, signal),
      async (u) => await u.client.call<T>(method, params, signal))
  }

  async function batch<T> (calls: RpcCall[], signal?: AbortSignal): Promise<T[]> {
    return await withFailover(() => calls, async () => await o.local.batch<T>(calls, signal), async (u) => await u.client.batch<T>(calls, signal))
  }

  return {
    url: o.local.url,
    send,
    call,
    batch,
    batchAnswers,
    localDown: () => downSince !== undefined,
    // The local client and the upstreams are their owners' to close.
    close: async () => {}
  }
}

/** The calls of a JSON-RPC text (one or a batch); none when it cannot be read (then it stays with the local node). */
function callsOf (body: string): RpcCall[] {
  try {
    const parsed = JSON.parse(body) as unknown
    const items = Array.isArray(parsed) ? parsed : [parsed]
    return items.map((item) => {
      const { method, params } = (item ?? {}) as { method?: unknown, params?: unknown }
      if (typeof method !== 'string') throw new Error('no method')
      return { method, params: Array.isArray(params) ? params : [] }
    })
  } catch {
    return []
  }
}

/** Whether a call's answer depends on the head (only a call pinned to a block number or hash does not). */
function isAtLatest (call: RpcCall): boolean {
  const scope = planCall(call.method, call.params)?.scope.kind
  return scope !== 'block' && scope !== 'blockHash'
}
