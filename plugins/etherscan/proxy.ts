// The proxy module: the eth_* actions Etherscan documents, each turned into
// one JSON-RPC call and answered through the gateway's own endpoint
// (core/json-rpc/handler.ts), so its method list, parameter checks, kept
// answers and failover apply as they do on POST /rpc. The answer is the
// handler's JSON-RPC text as it is ({"jsonrpc":"2.0","id":1,"result":...}
// or its error object), which is what Etherscan answers and what ethers'
// EtherscanProvider reads (it refuses anything without jsonrpc "2.0", and
// reads a revert's reason from error.message and error.data).
import { JsonRpcError, errorResponse } from '../../core/json-rpc/errors.ts'
import type { EtherscanAction } from './action.ts'
import { jsonRpcText } from './envelope.ts'
import type { Params } from './params.ts'

/** Etherscan's proxy answers carry an id of their own: the request has none to echo. */
const PROXY_ID = 1

/** A parameter the call cannot be made with: answered as JSON-RPC's -32602, the reason as its data. */
class ProxyParamError extends Error {}

const param = (description: string) => ({ type: 'string', description })
const TAG = param('A block number in hex (0x10d4f), or latest, earliest, pending, safe or finalized')
const STATE_TAG = param('The block to read the state at: a hex number or a tag (default latest)')

function required (params: Params, name: string): string {
  const value = params[name]
  if (value === undefined) throw new ProxyParamError(`${name} is required`)
  return value
}

function readBoolean (params: Params, name: string): boolean {
  const value = required(params, name)
  if (value !== 'true' && value !== 'false') throw new ProxyParamError(`${name}: expected true or false, got ${JSON.stringify(value)}`)
  return value === 'true'
}

/** ethers writes an access list as [{address:"0x..",storageKeys:["0x.."]}], keys unquoted; JSON written right reads too. */
function readAccessList (value: string): unknown {
  try {
    return JSON.parse(value.replace(/([{,]\s*)(address|storageKeys)\s*:/g, '$1"$2":'))
  } catch {
    throw new ProxyParamError('accessList: expected a list of {address, storageKeys}')
  }
}

/**
 * The fields of a call Etherscan takes (to, data, value, gas, gasPrice) and
 * what ethers' EtherscanProvider sends besides (from, gasLimit for gas, the
 * EIP-1559 fees, nonce, type, accessList), as a JSON-RPC call object; the
 * endpoint's own checks then judge each value.
 */
const CALL_FIELDS = ['from', 'to', 'data', 'value', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'nonce', 'type'] as const
function readCall (params: Params): Record<string, unknown> {
  const call: Record<string, unknown> = {}
  for (const name of CALL_FIELDS) if (params[name] !== undefined) call[name] = params[name]
  if (call.gas === undefined && params.gasLimit !== undefined) call.gas = params.gasLimit
  if (params.accessList !== undefined) call.accessList = readAccessList(params.accessList)
  return call
}
const CALL_PARAMS = {
  to: param('The address called'),
  data: param('The call\'s input, hex'),
  from: param('The caller (optional)'),
  value: param('Wei sent, hex (optional)'),
  gas: param('The gas limit, hex (optional; gasLimit as ethers sends it)'),
  gasPrice: param('Wei per gas, hex (optional)'),
  gasLimit: param('The gas limit, as ethers names it'),
  maxFeePerGas: param('EIP-1559 fee cap, hex (optional)'),
  maxPriorityFeePerGas: param('EIP-1559 tip cap, hex (optional)'),
  nonce: param('The nonce, hex (optional)'),
  type: param('The transaction type, hex (optional)'),
  accessList: param('An access list (optional), as JSON or as ethers writes it')
}

function proxyAction (method: string, summary: string, params: Record<string, { type: string, description: string }>, toParams: (p: Params) => unknown[]): EtherscanAction {
  return {
    summary: `${method}: ${summary}`,
    params,
    required: [],
    result: { description: `The JSON-RPC answer of ${method}` },
    answersAsJsonRpc: true,
    async run (query, { jsonRpc }) {
      let rpcParams: unknown[]
      try {
        rpcParams = toParams(query)
      } catch (error) {
        if (!(error instanceof ProxyParamError)) throw error
        return jsonRpcText(200, JSON.stringify(errorResponse(PROXY_ID, new JsonRpcError('INVALID_PARAMS', error.message))))
      }
      const { status, body } = await jsonRpc.handle(JSON.stringify({ jsonrpc: '2.0', id: PROXY_ID, method, params: rpcParams }))
      // A call with an id is always answered: a body is there.
      return jsonRpcText(status, body!)
    }
  }
}

const tagOr = (params: Params, fallback: string) => params.tag ?? fallback

/** A storage slot in hex, or in decimal as ethers' EtherscanProvider writes it (a bigint in the URL). */
function readPosition (params: Params): string {
  const position = required(params, 'position')
  return /^[0-9]{1,78}$/.test(position) ? '0x' + BigInt(position).toString(16) : position
}

export const PROXY_ACTIONS: Record<string, EtherscanAction> = {
  eth_blockNumber: proxyAction('eth_blockNumber', 'the newest block\'s number', {}, () => []),
  eth_getBlockByNumber: proxyAction('eth_getBlockByNumber', 'a block by number', {
    tag: TAG,
    boolean: param('true for the transactions in full, false for their hashes')
  }, (p) => [required(p, 'tag'), readBoolean(p, 'boolean')]),
  eth_getUncleByBlockNumberAndIndex: proxyAction('eth_getUncleByBlockNumberAndIndex', 'an uncle of a block (clique has none: null)', {
    tag: TAG,
    index: param('The uncle\'s position, hex')
  }, (p) => [required(p, 'tag'), required(p, 'index')]),
  eth_getBlockTransactionCountByNumber: proxyAction('eth_getBlockTransactionCountByNumber', 'how many transactions a block holds', { tag: TAG },
    (p) => [required(p, 'tag')]),
  eth_getTransactionByHash: proxyAction('eth_getTransactionByHash', 'a transaction', { txhash: param('A transaction hash') },
    (p) => [required(p, 'txhash')]),
  eth_getTransactionByBlockNumberAndIndex: proxyAction('eth_getTransactionByBlockNumberAndIndex', 'a block\'s transaction by position', {
    tag: TAG,
    index: param('The transaction\'s position in the block, hex')
  }, (p) => [required(p, 'tag'), required(p, 'index')]),
  eth_getTransactionCount: proxyAction('eth_getTransactionCount', 'how many transactions an address sent (its next nonce)', {
    address: param('An address'),
    tag: STATE_TAG
  }, (p) => [required(p, 'address'), tagOr(p, 'latest')]),
  eth_sendRawTransaction: proxyAction('eth_sendRawTransaction', 'broadcast a signed transaction (POST it: a GET URL may be too short)', {
    hex: param('The signed transaction, hex')
  }, (p) => [required(p, 'hex')]),
  eth_getTransactionReceipt: proxyAction('eth_getTransactionReceipt', 'a transaction\'s receipt', { txhash: param('A transaction hash') },
    (p) => [required(p, 'txhash')]),
  eth_call: proxyAction('eth_call', 'run a call without a transaction', { ...CALL_PARAMS, tag: STATE_TAG },
    (p) => [readCall(p), tagOr(p, 'latest')]),
  eth_getCode: proxyAction('eth_getCode', 'an address\'s code', { address: param('An address'), tag: STATE_TAG },
    (p) => [required(p, 'address'), tagOr(p, 'latest')]),
  eth_getStorageAt: proxyAction('eth_getStorageAt', 'a storage slot\'s value', {
    address: param('An address'),
    position: param('The storage slot, hex (or decimal, as ethers sends it)'),
    tag: STATE_TAG
  }, (p) => [required(p, 'address'), readPosition(p), tagOr(p, 'latest')]),
  eth_gasPrice: proxyAction('eth_gasPrice', 'the node\'s suggested gas price, wei', {}, () => []),
  eth_estimateGas: proxyAction('eth_estimateGas', 'the gas a transaction would use', CALL_PARAMS, (p) => [readCall(p)])
}
