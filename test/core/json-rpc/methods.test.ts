import t from 'tap'
import { METHODS, isAllowedMethod, isPremiumMethod, isSocketOnly, validateParams } from '../../../core/json-rpc/methods.ts'
import { isNestedDeeperThan } from '../../../core/json-rpc/params.ts'

const ADDRESS = '0x' + 'ab'.repeat(20)
const HASH = '0x' + '12'.repeat(32)

t.test('isAllowedMethod() allows the published and wallet methods and nothing that signs or administers', async (t) => {
  for (const method of ['eth_blockNumber', 'eth_getLogs', 'eth_sendRawTransaction', 'eth_feeHistory', 'eth_newFilter', 'net_version']) {
    t.ok(isAllowedMethod(method), method)
  }
  for (const method of ['eth_sign', 'eth_signTransaction', 'eth_signTypedData_v4', 'personal_unlockAccount', 'admin_peers', 'debug_setHead',
    'debug_traceChain', 'miner_start', 'clique_propose', 'txpool_content', 'eth_accounts', 'toString', '__proto__', 'constructor']) {
    t.notOk(isAllowedMethod(method), method)
  }
  // 40 over HTTP, and eth_subscribe / eth_unsubscribe over a WebSocket only; 5 of them to premium keys only.
  t.equal(Object.keys(METHODS).length, 42)
  t.same(Object.keys(METHODS).filter(isSocketOnly), ['eth_subscribe', 'eth_unsubscribe'])
  t.same(Object.keys(METHODS).filter(isPremiumMethod), ['debug_traceTransaction', 'debug_traceCall', 'debug_traceBlockByNumber', 'debug_traceBlockByHash', 'txpool_status'])
})

t.test('validateParams() fills the default block and checks each param', async (t) => {
  t.same(validateParams('eth_getBalance', [ADDRESS]), { params: [ADDRESS, 'latest'] })
  t.same(validateParams('eth_getBalance', [ADDRESS, '0x10']), { params: [ADDRESS, '0x10'] })
  t.same(validateParams('eth_getBalance', [ADDRESS, { blockHash: HASH }]), { params: [ADDRESS, { blockHash: HASH }] })
  t.same(validateParams('eth_estimateGas', [{ to: ADDRESS }]), { params: [{ to: ADDRESS }] })
  t.same(validateParams('eth_feeHistory', [4, 'latest', [25, 75]]), { params: [4, 'latest', [25, 75]] })
})

t.test('validateParams() names the param that is wrong', async (t) => {
  const cases: Array<[string, unknown[], RegExp]> = [
    ['eth_getBalance', ['0x12'], /param 0 \(address\)/],
    ['eth_getBalance', [ADDRESS, 'newest'], /param 1 \(block\)/],
    ['eth_getBalance', [ADDRESS, '0x01'], /param 1 \(block\)/],
    ['eth_getBalance', [], /takes 1 to 2 params/],
    ['eth_blockNumber', [1], /takes 0 params/],
    ['eth_getBlockByNumber', ['latest'], /takes 2 params/],
    ['eth_getBlockByNumber', ['latest', 'yes'], /param 1 \(fullTransactions\)/],
    ['eth_getTransactionByHash', ['0x1234'], /param 0 \(hash\)/],
    ['eth_sendRawTransaction', ['0xabc'], /even number/],
    ['eth_call', [{ to: '0x1' }], /to:/],
    ['eth_call', [{ to: ADDRESS, value: 5 }], /value:/],
    ['eth_getLogs', [{ fromBlock: 'x' }], /fromBlock/],
    ['eth_getLogs', [{ blockHash: HASH, fromBlock: '0x1' }], /blockHash cannot be combined/],
    ['eth_getLogs', [{ topics: [HASH, [HASH, '0x1']] }], /topics/],
    ['eth_getLogs', [{ topics: [null, null, null, null, null] }], /at most 4/],
    ['eth_getLogs', [{ address: ['0x1'] }], /address/],
    ['eth_getLogs', ['latest'], /expected an object/],
    ['eth_feeHistory', [0, 'latest'], /blockCount/],
    ['eth_feeHistory', ['0x2', 'latest', [75, 25]], /ascending/],
    ['eth_getStorageAt', [ADDRESS, '0x' + '0'.repeat(65)], /slot/],
    ['eth_getFilterChanges', [12], /filterId/]
  ]
  for (const [method, params, reason] of cases) {
    const result = validateParams(method, params)
    t.ok('reason' in result && reason.test(result.reason), `${method} ${JSON.stringify(params)}: ${JSON.stringify(result)}`)
  }
})

t.test('isNestedDeeperThan() counts arrays and objects, without recursion', async (t) => {
  t.notOk(isNestedDeeperThan('0x1', 0), 'a scalar has no depth')
  t.ok(isNestedDeeperThan([], 0))
  t.notOk(isNestedDeeperThan([{ a: [1] }], 3))
  t.ok(isNestedDeeperThan([{ a: [1] }], 2))
  t.ok(isNestedDeeperThan([{ a: 1 }, { b: { c: {} } }], 3), 'the deepest branch counts')
  let deep: unknown = 1
  for (let i = 0; i < 100_000; i++) deep = [deep]
  t.ok(isNestedDeeperThan(deep, 16), '100,000 levels do not overflow the stack')
})
