// The balance scan's calls and answers, without a node (bulk-load.test.ts
// reads real balances with it): how addresses are split into calls and how
// the answers of several scans sent as one list are handed back to each.
import t from 'tap'
import { balanceScan, readScans, SCAN_MAX_ADDRESSES } from '../../../core/indexer/balance-scanner.ts'
import type { Hex } from '../../../core/indexer/types.ts'

const at = { blockHash: `0x${'ab'.repeat(32)}` as Hex, requireCanonical: false }
const address = (i: number): Hex => `0x${i.toString(16).padStart(40, '0')}`
/** What the scanner answers for these balances: a 32-byte word each. */
const answer = (balances: number[]): string => `0x${balances.map((b) => b.toString(16).padStart(64, '0')).join('')}`

t.test('addresses are split into calls of at most perCall, in order', async (t) => {
  const scan = balanceScan([1, 2, 3, 4, 5].map(address), at, 2)
  t.equal(scan.calls.length, 3)
  const words = scan.calls.map((c) => ((c.params[0] as { data: string }).data.length - 2) / 64)
  t.same(words, [2, 2, 1], 'two, two and one address')
  t.match(scan.calls[2]!.params[0], { data: `0x${address(5).slice(2).padStart(64, '0')}` }, 'the last one last')
  t.same(scan.calls[0]!.params[1], at, 'every call at the same block')
  t.equal(balanceScan([], at).calls.length, 0, 'no addresses, no call')
  t.equal(balanceScan(Array.from({ length: SCAN_MAX_ADDRESSES + 1 }, (_, i) => address(i)), at).calls.length, 2, `${SCAN_MAX_ADDRESSES} a call by default`)
})

t.test('several scans\' answers, sent as one list, go back to each scan', async (t) => {
  const first = balanceScan([1, 2, 3].map(address), at, 2)
  const second = balanceScan([4].map(address), at, 2)
  const answers = [answer([10, 20]), answer([30]), answer([40]), 'left for the caller']
  t.same(readScans([first, second], answers), [['10', '20', '30'], ['40']])
})

t.test('an answer that does not fit the addresses asked is refused', async (t) => {
  const scan = balanceScan([1, 2].map(address), at)
  t.throws(() => scan.read([answer([1])]), /balance scan answered/, 'too short')
  t.throws(() => scan.read([null]), /balance scan answered/, 'not a string')
})
