// The public method allowlist and each method's params. Anything not listed
// (admin_, debug_ but the traces, personal_, miner_, clique_, txpool_ but its
// status, eth_sign*, ...) answers -32601: Geth's signer account is unlocked,
// so signing must never reach it. Methods marked `premium` are served to
// premium API keys only (-32004 for anyone else).
import * as p from './params.ts'
import { traceCallConfig, traceConfig } from './trace-options.ts'
import { subscriptionKind, subscriptionOptions } from './subscription-request.ts'

export type ParamSpec = {
  name: string
  check: p.Check
  /** Optional params may be left out; a default is filled in before forwarding. */
  optional?: boolean
  default?: unknown
}

export type MethodSpec = {
  params: ParamSpec[]
  /** How many leading params are required; computed once below. */
  required?: number
  /** A cheap read: concurrent calls may share one batch to the node (core/rpc/batcher.ts). */
  joinable?: boolean
  /** Served over a WebSocket only (core/json-rpc/socket-session.ts): over HTTP it answers -32601, as Geth's HTTP endpoint does. */
  socketOnly?: boolean
  /** Served to premium API keys only: traces cost Geth far more than a read, and the pool's state is a paid insight. */
  premium?: boolean
}

const none: MethodSpec = { params: [] }
const read = (params: ParamSpec[] = []): MethodSpec => ({ params, joinable: true })
const param = (name: string, check: p.Check): ParamSpec => ({ name, check })
const latest = (name = 'block'): ParamSpec => ({ name, check: p.blockRef, optional: true, default: 'latest' })
const options = (check: p.Check): ParamSpec => ({ name: 'options', check, optional: true })
/** eth_getProof: each key is a trie walk in Geth. */
const MAX_PROOF_KEYS = 1000

export const METHODS: Readonly<Record<string, MethodSpec>> = {
  // The published interface.
  eth_blockNumber: read(),
  eth_getBalance: read([param('address', p.address), latest()]),
  eth_getTransactionCount: read([param('address', p.address), latest()]),
  eth_getCode: read([param('address', p.address), latest()]),
  eth_getStorageAt: read([param('address', p.address), param('slot', p.storageSlot), latest()]),
  eth_gasPrice: read(),
  eth_chainId: none,
  eth_getTransactionByHash: read([param('hash', p.hash)]),
  eth_getTransactionReceipt: read([param('hash', p.hash)]),
  eth_sendRawTransaction: { params: [param('transaction', p.data)] },
  eth_sendTransaction: { params: [param('transaction', p.transaction)] },
  eth_getBlockByNumber: read([param('block', p.blockTag), param('fullTransactions', p.bool)]),
  eth_getBlockByHash: read([param('hash', p.hash), param('fullTransactions', p.bool)]),
  eth_call: { params: [param('transaction', p.transaction), latest(), { name: 'stateOverrides', check: p.stateOverrides, optional: true }] },
  eth_estimateGas: { params: [param('transaction', p.transaction), { name: 'block', check: p.blockRef, optional: true }] },
  eth_getLogs: { params: [param('filter', p.filter)] },
  // What wallets and libraries call.
  net_version: none,
  net_listening: read(),
  web3_clientVersion: read(),
  eth_syncing: read(),
  eth_feeHistory: { params: [param('blockCount', p.blockCount), param('newestBlock', p.blockTag), { name: 'rewardPercentiles', check: p.percentiles, optional: true }] },
  eth_maxPriorityFeePerGas: read(),
  eth_getBlockReceipts: { params: [param('block', p.blockTagOrHash)] },
  eth_getBlockTransactionCountByNumber: read([param('block', p.blockTag)]),
  eth_getBlockTransactionCountByHash: read([param('hash', p.hash)]),
  eth_getTransactionByBlockNumberAndIndex: read([param('block', p.blockTag), param('index', p.quantity)]),
  eth_getTransactionByBlockHashAndIndex: read([param('hash', p.hash), param('index', p.quantity)]),
  // Clique seals no uncles: Geth answers null. Etherscan's proxy module documents it.
  eth_getUncleByBlockNumberAndIndex: read([param('block', p.blockTag), param('index', p.quantity)]),
  eth_newFilter: { params: [param('filter', p.filter)] },
  eth_newBlockFilter: none,
  eth_getFilterChanges: { params: [param('filterId', p.filterId)] },
  eth_getFilterLogs: { params: [param('filterId', p.filterId)] },
  eth_uninstallFilter: { params: [param('filterId', p.filterId)] },
  // State proofs and access lists, as wallets and libraries ask them. eth_createAccessList's left-out block is Geth's pending.
  eth_getProof: { params: [param('address', p.address), param('storageKeys', p.arrayOf(p.storageSlot, MAX_PROOF_KEYS)), latest()] },
  eth_createAccessList: { params: [param('transaction', p.transaction), { name: 'block', check: p.blockRef, optional: true }] },
  // Premium keys only (core/json-rpc/trace-options.ts holds the options to the limits).
  debug_traceTransaction: { params: [param('hash', p.hash), options(traceConfig)], premium: true },
  debug_traceCall: { params: [param('transaction', p.transaction), latest(), options(traceCallConfig)], premium: true },
  debug_traceBlockByNumber: { params: [param('block', p.blockTag), options(traceConfig)], premium: true },
  debug_traceBlockByHash: { params: [param('hash', p.hash), options(traceConfig)], premium: true },
  txpool_status: { params: [], premium: true },
  // Over a WebSocket: answered from the node's own subscriptions (core/json-rpc/subscriptions.ts).
  eth_subscribe: { params: [param('kind', subscriptionKind), { name: 'options', check: subscriptionOptions, optional: true }], socketOnly: true },
  eth_unsubscribe: { params: [param('subscriptionId', p.filterId)], socketOnly: true }
}

for (const spec of Object.values(METHODS)) spec.required = spec.params.filter((p) => !p.optional).length

export function isAllowedMethod (method: string): boolean {
  return Object.hasOwn(METHODS, method)
}

export function isJoinable (method: string): boolean {
  return METHODS[method]?.joinable === true
}

export function isPremiumMethod (method: string): boolean {
  return METHODS[method]?.premium === true
}

export function isSocketOnly (method: string): boolean {
  return METHODS[method]?.socketOnly === true
}

/** Checks arity and each param; returns the params to forward (defaults filled) or a reason. */
export function validateParams (method: string, params: unknown[]): { params: unknown[] } | { reason: string } {
  const { params: specs, required = 0 } = METHODS[method]!
  if (specs.length === 0 && params.length === 0) return { params }
  if (params.length < required || params.length > specs.length) {
    const arity = required === specs.length ? `${required}` : `${required} to ${specs.length}`
    return { reason: `${method} takes ${arity} params (${specs.map((s) => s.name).join(', ') || 'none'}), got ${params.length}` }
  }
  const filled: unknown[] = []
  for (const [i, spec] of specs.entries()) {
    const value = params[i]
    if (value === undefined || (value === null && spec.optional)) {
      if (spec.default !== undefined) filled.push(spec.default)
      else if (i < params.length) filled.push(value)
      continue
    }
    const reason = spec.check(value)
    if (reason !== undefined) return { reason: `param ${i} (${spec.name}): ${reason}` }
    filled.push(value)
  }
  return { params: filled }
}
