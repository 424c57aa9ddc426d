// subscriptionRequest(): the checks of eth_subscribe's params by kind, and the
// canonical key that lets spellings of one request share a node subscription.
import t from 'tap'
import { subscriptionRequest } from '../../../core/json-rpc/subscription-request.ts'
import { JsonRpcError } from '../../../core/json-rpc/errors.ts'

const A = '0x' + 'Ab'.repeat(20)
const B = '0x' + '0c'.repeat(20)
const T1 = '0x' + 'E1'.repeat(32)
const T2 = '0x' + '02'.repeat(32)

t.test('subscriptionRequest() gives one key to spellings of one logs filter', async (t) => {
  const key = subscriptionRequest(['logs', { address: [B, A], topics: [T1, [T2, T1]] }]).key
  for (const spelling of [
    { address: [A.toLowerCase(), B, A], topics: [[T1.toLowerCase()], [T1, T2]] },
    { address: [B.toUpperCase().replace('0X', '0x'), A], topics: [T1, [T2, T1, T2]], fromBlock: 'latest' }
  ]) t.equal(subscriptionRequest(['logs', spelling]).key, key, JSON.stringify(spelling))
  t.same(subscriptionRequest(['logs', { address: A, topics: [T1] }]).options, [{ address: [A.toLowerCase()], topics: [[T1.toLowerCase()]] }])
})

t.test('subscriptionRequest() keeps apart what hears different logs', async (t) => {
  const keys = [
    ['logs'], ['logs', {}], ['logs', { address: [] }], ['logs', { topics: [] }],
    ['logs', { topics: [null] }], ['logs', { topics: [[]] }], ['logs', { topics: [[T1, null]] }],
    ['logs', { topics: [T1] }], ['logs', { topics: [T1, null] }], ['logs', { topics: [null, T1] }],
    ['logs', { address: A }], ['logs', { address: [A, B] }]
  ].map((params) => subscriptionRequest(params).key)
  // No address or topics, an empty list of either: all logs. A wildcard position counts (a log needs that many topics).
  t.equal(new Set(keys.slice(0, 4)).size, 1)
  t.equal(new Set(keys.slice(4, 7)).size, 1, 'null, [] and a list holding null are one wildcard')
  t.equal(new Set([keys[0], keys[4], ...keys.slice(7)]).size, 7)
})

t.test('subscriptionRequest() refuses what a kind does not take, with -32602', async (t) => {
  const refused = [
    ['newHeads', {}], ['newHeads', true], ['newPendingTransactions', {}], ['syncing'], [1],
    ['logs', { address: '0x12' }], ['logs', { topics: ['0x12'] }], ['logs', { topics: [T1, T1, T1, T1, T1] }],
    ['logs', { blockHash: T1 }], ['logs', true]
  ]
  for (const params of refused) {
    let code: number | undefined
    try {
      subscriptionRequest(params)
    } catch (err) {
      code = err instanceof JsonRpcError ? err.code : undefined
    }
    t.equal(code, -32602, JSON.stringify(params))
  }
  t.same(subscriptionRequest(['newPendingTransactions', true]), { kind: 'newPendingTransactions', options: [true], key: 'newPendingTransactions:full' })
  t.same(subscriptionRequest(['newPendingTransactions', false]).key, 'newPendingTransactions')
  t.same(subscriptionRequest(['newHeads', null]).key, 'newHeads')
})
