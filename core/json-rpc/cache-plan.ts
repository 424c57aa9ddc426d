// Which answers the JSON-RPC cache (answer-cache.ts) may keep, for how long,
// and under which key. Pure: the params have passed validateParams already.
//
// A key is the method and the params in a normal form: top-level strings in
// lower case (addresses, hashes and quantities are hex, which Geth reads in
// any case), trailing nulls left out (an optional param given as null is one
// left out) and a missing block of eth_estimateGas written as `latest`, which
// is what Geth takes it for. The normal form is also what goes to Geth.

/**
 * How long an answer may be kept:
 * - `head`: until the next head (it answers for `latest`);
 * - `block`: about block `number`, which does not change unless a reorg replaces it;
 * - `blockHash`: state at a block given by its hash: kept while that block is one of the recent heads heard;
 * - `result`: about the block its result names (`number` of a block, `blockNumber` of a transaction or receipt).
 */
export type CacheScope =
  | { kind: 'head' }
  | { kind: 'block', number: number }
  | { kind: 'blockHash', hash: string }
  | { kind: 'result' }

export type CachePlan = {
  key: string
  method: string
  /** The params in their normal form, to forward. */
  params: unknown[]
  /** JSON text of `params`, made once for the key and the request to Geth. */
  paramsText: string
  scope: CacheScope
}

const HEX_QUANTITY = /^0x[0-9a-f]+$/
const HASH_LENGTH = 66

type Planner = (params: unknown[]) => CacheScope | undefined

const head: Planner = () => ({ kind: 'head' })
const result: Planner = () => ({ kind: 'result' })
const refAt = (index: number): Planner => (params) => blockRefScope(params[index])
const hashAt = (index: number): Planner => (params) => ({ kind: 'blockHash', hash: params[index] as string })

/** The methods whose answers are kept; every other one (pending state, sends, filters, logs, traces) never is. */
const PLANNERS: Readonly<Record<string, Planner>> = {
  eth_blockNumber: head,
  eth_gasPrice: head,
  eth_maxPriorityFeePerGas: head,
  web3_clientVersion: head,
  eth_feeHistory: refAt(1),
  eth_getBlockByNumber: refAt(0),
  eth_getBlockByHash: result,
  eth_getTransactionByHash: result,
  eth_getTransactionReceipt: result,
  eth_getBalance: refAt(1),
  eth_getTransactionCount: refAt(1),
  eth_getCode: refAt(1),
  eth_getStorageAt: refAt(2),
  eth_call: refAt(1),
  eth_estimateGas: refAt(1),
  eth_getProof: refAt(2),
  // Left out, its block is Geth's pending: never kept.
  eth_createAccessList: refAt(1),
  eth_getBlockReceipts: refAt(0),
  eth_getBlockTransactionCountByNumber: refAt(0),
  eth_getBlockTransactionCountByHash: hashAt(0),
  eth_getTransactionByBlockNumberAndIndex: refAt(0),
  eth_getTransactionByBlockHashAndIndex: hashAt(0)
}

export function isKeptMethod (method: string): boolean {
  return Object.hasOwn(PLANNERS, method)
}

/** The plan for a checked call, or undefined when its answer is never kept. */
export function planCall (method: string, params: unknown[]): CachePlan | undefined {
  const planner = PLANNERS[method]
  if (planner === undefined) return undefined
  const normal = normalParams(method, params)
  const scope = planner(normal)
  if (scope === undefined) return undefined
  const paramsText = JSON.stringify(normal)
  return { key: method + paramsText, method, params: normal, paramsText, scope }
}

export function normalParams (method: string, params: unknown[]): unknown[] {
  const normal = params.map((p) => typeof p === 'string' ? p.toLowerCase() : p)
  while (normal.length > 0 && (normal[normal.length - 1] === null || normal[normal.length - 1] === undefined)) normal.pop()
  if (method === 'eth_estimateGas' && normal.length === 1) normal.push('latest')
  return normal
}

/** A block param (a tag, a number, a hash or an EIP-1898 object) as a scope; undefined for pending, safe and finalized. */
export function blockRefScope (ref: unknown): CacheScope | undefined {
  if (ref !== null && typeof ref === 'object') {
    const r = ref as { blockNumber?: unknown, blockHash?: unknown }
    if (typeof r.blockHash === 'string') return { kind: 'blockHash', hash: r.blockHash.toLowerCase() }
    return blockRefScope(r.blockNumber)
  }
  if (typeof ref !== 'string') return undefined
  if (ref === 'latest') return { kind: 'head' }
  if (ref === 'earliest') return { kind: 'block', number: 0 }
  if (ref.length === HASH_LENGTH) return { kind: 'blockHash', hash: ref }
  if (HEX_QUANTITY.test(ref)) return { kind: 'block', number: Number(ref) }
  return undefined
}

/** The block number a `result`-scoped answer is about: a block's `number`, a transaction's or receipt's `blockNumber`; undefined for null or pending. */
export function resultBlock (method: string, value: unknown): number | undefined {
  if (value === null || typeof value !== 'object') return undefined
  const field = method === 'eth_getBlockByHash' ? 'number' : 'blockNumber'
  const number = (value as Record<string, unknown>)[field]
  return typeof number === 'string' && HEX_QUANTITY.test(number) ? Number(number) : undefined
}
