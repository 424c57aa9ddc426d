// JSON-RPC over HTTP (POST / and /rpc): calls of every allowed method
// (core/json-rpc/methods.ts, so a new one is fuzzed at once) and of methods
// the gateway denies, with hostile params; then what is not a call at all:
// bodies that are not JSON, wrong types, huge and empty batches, deep nesting
// and bodies over RPC_MAX_BODY_BYTES.
import fc from 'fast-check'
import { METHODS } from '../../core/json-rpc/methods.ts'
import { describe, type FuzzRequest } from './http.ts'
import { hostileJson, hostileString, knownHash, nestedJson, plausible, type Known } from './hostile.ts'
import { checkJsonRpc } from './shapes.ts'
import type { FuzzTarget } from './run.ts'

/** Methods Geth has that must never reach it through the gateway (docs/json-rpc.md). */
export const DENIED_METHODS = [
  'eth_sign', 'eth_signTransaction', 'eth_signTypedData', 'eth_signTypedData_v4', 'eth_accounts', 'eth_coinbase', 'eth_mining',
  'eth_submitWork', 'eth_getWork', 'eth_subscribe', 'eth_fillTransaction', 'eth_resend',
  'personal_unlockAccount', 'personal_sign', 'personal_sendTransaction', 'personal_listAccounts', 'personal_importRawKey', 'personal_newAccount',
  'admin_addPeer', 'admin_nodeInfo', 'admin_peers', 'admin_stopHTTP', 'admin_exportChain', 'admin_datadir',
  'debug_setHead', 'debug_traceChain', 'debug_standardTraceBlockToFile', 'debug_traceBadBlock', 'debug_intermediateRoots',
  'debug_dumpBlock', 'debug_getRawBlock', 'debug_gcStats',
  'debug_freeOSMemory', 'debug_setGCPercent', 'debug_chaindbCompact',
  'miner_start', 'miner_stop', 'miner_setEtherbase', 'miner_setExtra', 'clique_propose', 'clique_discard', 'clique_getSigners',
  'txpool_content', 'txpool_contentFrom', 'txpool_inspect', 'les_addBalance', 'engine_newPayloadV1', 'rpc_modules', 'web3_sha3',
  'ETH_BLOCKNUMBER', 'eth_blockNumber ', ' eth_blockNumber', 'eth_blockNumber\u0000', 'еth_blockNumber', '__proto__', 'constructor', 'toString', 'hasOwnProperty'
]
const MAX_BATCH = 100
/** RPC_MAX_BODY_BYTES's default is 5 MiB: one body just over it. */
const OVERSIZED_BODY = Buffer.alloc(5 * 1024 * 1024 + 1024, ' ')

export function createJsonRpcTarget (known: Known): FuzzTarget {
  const request = fc.record({
    path: fc.constantFrom('/', '/rpc'),
    contentType: fc.oneof({ weight: 9, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1') }),
    body: jsonRpcBodies(known, OVERSIZED_BODY)
  }).map(({ path, contentType, body }): FuzzRequest => describe({ method: 'POST', path, headers: { 'content-type': contentType }, body }))
  return { name: 'JSON-RPC', requests: request, check: checkJsonRpc }
}

/** What a JSON-RPC body (or WebSocket message) may be: calls, batches, and what is not a call at all; `oversized` is one just over the limit. */
export function jsonRpcBodies (known: Known, oversized: string | Buffer): fc.Arbitrary<string | Buffer> {
  const allowed = Object.keys(METHODS)
  const method = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...allowed) }, { weight: 1, arbitrary: fc.constantFrom(...DENIED_METHODS) })
  const paramValue = fc.oneof(
    { weight: 3, arbitrary: plausible(known) },
    { weight: 2, arbitrary: transactionObject(known) },
    { weight: 1, arbitrary: filterObject(known) },
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 3, arbitrary: hostileJson(known) }
  )
  const id = fc.oneof(fc.nat(), fc.string({ maxLength: 8 }), fc.constant(null), fc.constantFrom(1.5, -1, 1e308), fc.constant({}), fc.constant([]))
  const call = fc.record({
    jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: fc.constantFrom('1.0', 2, null, '2.0 ') }),
    id,
    method: fc.oneof({ weight: 12, arbitrary: method }, { weight: 1, arbitrary: hostileJson(known) }),
    params: fc.oneof({ weight: 8, arbitrary: fc.array(paramValue, { maxLength: 4 }) }, { weight: 1, arbitrary: hostileJson(known) })
  }, { requiredKeys: ['jsonrpc', 'id', 'method'] })
  const body: fc.Arbitrary<string | Buffer> = fc.oneof(
    { weight: 10, arbitrary: call.map((c) => JSON.stringify(c)) },
    { weight: 3, arbitrary: fc.array(call, { minLength: 1, maxLength: 20 }).map((c) => JSON.stringify(c)) },
    { weight: 1, arbitrary: fc.integer({ min: MAX_BATCH - 2, max: 3000 }).map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' })))) },
    { weight: 1, arbitrary: fc.constantFrom('[]', '{}', 'null', '1', '"eth_chainId"', '', '[[]]', '[1,2]', '{"jsonrpc":"2.0"}', '\ufeff{}') },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 50 }).map((s) => `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"${s}`) },
    { weight: 1, arbitrary: fc.integer({ min: 10, max: 100_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)) },
    { weight: 1, arbitrary: fc.integer({ min: 10, max: 100_000 }).map((depth) => `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[${nestedJson(depth)}]}`) },
    { weight: 1, arbitrary: fc.constant(oversized) },
    { weight: 1, arbitrary: fc.constantFrom(...known.transactionHashes).map((hash) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionByHash', params: [hash.replace(/a/g, 'а')] })) }
  )
  return body
}

function transactionObject (known: Known): fc.Arbitrary<unknown> {
  const field = fc.oneof(knownHash(known), hostileString(known))
  return fc.record({ from: field, to: field, data: field, value: field, gas: field, gasPrice: field, nonce: field, input: field }, { requiredKeys: [] })
}

export function filterObject (known: Known): fc.Arbitrary<unknown> {
  const field = fc.oneof(plausible(known), hostileString(known))
  return fc.record({ fromBlock: field, toBlock: field, address: fc.oneof(field, fc.array(field, { maxLength: 3 })), topics: fc.array(fc.oneof(field, fc.constant(null)), { maxLength: 5 }), blockHash: field }, { requiredKeys: [] })
}
