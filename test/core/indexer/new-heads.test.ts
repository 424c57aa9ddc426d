// The head number a newHeads notification names: what follow() fetches at once.
import t from 'tap'
import { announcedHead } from '../../../core/indexer/new-heads.ts'

const notification = (result: unknown): string => JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0xab', result } })

t.test('announcedHead() reads the number of a newHeads notification and nothing else', async (t) => {
  t.equal(announcedHead(notification({ number: '0x1f', hash: '0x' + '1'.repeat(64) })), 31)
  t.equal(announcedHead(notification({ number: '0x0' })), 0)
  t.equal(announcedHead(notification({ number: 31 })), undefined, 'a number that is not a hex quantity')
  t.equal(announcedHead(notification({ number: '0xzz' })), undefined)
  t.equal(announcedHead(notification({})), undefined)
  t.equal(announcedHead(notification(null)), undefined)
  t.equal(announcedHead(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0xab' })), undefined, 'the answer to eth_subscribe')
  t.equal(announcedHead('{"method":"eth_subscription"'), undefined, 'not JSON')
})
