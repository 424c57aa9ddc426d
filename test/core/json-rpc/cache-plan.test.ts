// planCall(): which answers may be kept, for how long, and their keys in normal form.
import t from 'tap'
import { blockRefScope, planCall, resultBlock } from '../../../core/json-rpc/cache-plan.ts'
import { validateParams } from '../../../core/json-rpc/methods.ts'

const ADDRESS = '0x00000000000000000000000000000000000000Ab'
const HASH = '0x' + 'Ab'.repeat(32)

/** As the handler plans: after validateParams filled the defaults. */
function plan (method: string, params: unknown[]) {
  const checked = validateParams(method, params)
  if ('reason' in checked) throw new Error(checked.reason)
  return planCall(method, checked.params)
}

t.test('planCall() keys a missing block as latest, lower-cases strings and leaves out trailing nulls', async (t) => {
  t.equal(plan('eth_getBalance', [ADDRESS])!.key, plan('eth_getBalance', [ADDRESS.toLowerCase(), 'latest'])!.key)
  t.equal(plan('eth_getBalance', [ADDRESS, null])!.key, plan('eth_getBalance', [ADDRESS, 'latest'])!.key)
  t.equal(plan('eth_estimateGas', [{ to: ADDRESS }])!.key, plan('eth_estimateGas', [{ to: ADDRESS }, 'latest'])!.key)
  t.equal(plan('eth_call', [{ to: ADDRESS }, 'latest', null])!.key, plan('eth_call', [{ to: ADDRESS }])!.key)
  t.not(plan('eth_getBalance', [ADDRESS, '0x1'])!.key, plan('eth_getBalance', [ADDRESS, 'latest'])!.key)
  t.not(plan('eth_getCode', [ADDRESS])!.key, plan('eth_getBalance', [ADDRESS])!.key, 'the method is part of the key')
  const p = plan('eth_getBalance', [ADDRESS])!
  t.same(p.params, [ADDRESS.toLowerCase(), 'latest'], 'the normal form is what goes to Geth')
  t.equal(p.paramsText, JSON.stringify(p.params))
})

t.test('planCall() scopes: latest until the next head, blocks by number or hash, results by the block they name', async (t) => {
  for (const method of ['eth_blockNumber', 'eth_gasPrice', 'eth_maxPriorityFeePerGas', 'web3_clientVersion']) t.same(plan(method, [])!.scope, { kind: 'head' }, method)
  t.same(plan('eth_getBlockByNumber', ['latest', false])!.scope, { kind: 'head' })
  t.same(plan('eth_getBlockByNumber', ['0x10', true])!.scope, { kind: 'block', number: 16 })
  t.same(plan('eth_getBlockByNumber', ['earliest', false])!.scope, { kind: 'block', number: 0 })
  t.same(plan('eth_feeHistory', ['0x4', 'latest', [50]])!.scope, { kind: 'head' })
  t.same(plan('eth_feeHistory', ['0x4', '0x20'])!.scope, { kind: 'block', number: 32 })
  t.same(plan('eth_getBlockByHash', [HASH, false])!.scope, { kind: 'result' })
  t.same(plan('eth_getTransactionReceipt', [HASH])!.scope, { kind: 'result' })
  t.same(plan('eth_getTransactionByHash', [HASH])!.scope, { kind: 'result' })
  t.same(plan('eth_getStorageAt', [ADDRESS, '0x0', HASH])!.scope, { kind: 'blockHash', hash: HASH.toLowerCase() })
  t.same(plan('eth_call', [{ to: ADDRESS }, { blockHash: HASH, requireCanonical: true }])!.scope, { kind: 'blockHash', hash: HASH.toLowerCase() })
  t.same(plan('eth_call', [{ to: ADDRESS }, { blockNumber: '0x5' }])!.scope, { kind: 'block', number: 5 })
  t.same(plan('eth_getTransactionCount', [ADDRESS])!.scope, { kind: 'head' })
})

t.test('planCall() never keeps pending, safe or finalized state, sends, filters, logs or subscriptions', async (t) => {
  t.equal(plan('eth_getBalance', [ADDRESS, 'pending']), undefined)
  t.equal(plan('eth_getTransactionCount', [ADDRESS, 'pending']), undefined)
  t.equal(plan('eth_getBlockByNumber', ['pending', false]), undefined)
  t.equal(plan('eth_call', [{ to: ADDRESS }, 'safe']), undefined)
  t.equal(plan('eth_getBlockByNumber', ['finalized', false]), undefined)
  t.equal(blockRefScope({ blockNumber: 'pending' }), undefined)
  for (const [method, params] of [
    ['eth_sendRawTransaction', ['0x00']], ['eth_getLogs', [{}]], ['eth_newBlockFilter', []], ['eth_getFilterChanges', ['0x1']],
    ['eth_syncing', []], ['net_listening', []], ['eth_chainId', []], ['net_version', []]
  ] as const) t.equal(plan(method, [...params]), undefined, method)
})

t.test('resultBlock() reads the block a result is about; none for null or a pending transaction', async (t) => {
  t.equal(resultBlock('eth_getBlockByHash', { number: '0x1f' }), 31)
  t.equal(resultBlock('eth_getTransactionReceipt', { blockNumber: '0x2' }), 2)
  t.equal(resultBlock('eth_getTransactionByHash', { blockNumber: null }), undefined)
  t.equal(resultBlock('eth_getTransactionByHash', null), undefined)
})
