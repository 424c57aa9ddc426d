import t from 'tap'
import { createLatestBalances } from '../../../core/indexer/latest-balances.ts'
import type { Hex } from '../../../core/indexer/types.ts'

const a = (i: number): Hex => `0x${i.toString(16).padStart(40, '0')}`

t.test('each address keeps the balance of its last row', async (t) => {
  const latest = createLatestBalances()
  latest.record([{ address: a(1), block_number: 5, value: '10' }, { address: a(2), block_number: 5, value: '7' }, { address: a(1), block_number: 6, value: '4' }])
  t.equal(latest.get(a(1)), '4', 'block 6, not 5')
  t.equal(latest.get(a(2)), '7')
  t.equal(latest.get(a(3)), undefined, 'never stored: unknown, not zero')
  latest.clear()
  t.equal(latest.get(a(1)), undefined, 'cleared')
  t.equal(latest.size, 0)
})

t.test('past its size the addresses stored longest ago are forgotten first', async (t) => {
  const latest = createLatestBalances(2)
  latest.record([{ address: a(1), block_number: 1, value: '1' }, { address: a(2), block_number: 1, value: '2' }])
  latest.record([{ address: a(1), block_number: 2, value: '11' }, { address: a(3), block_number: 2, value: '3' }])
  t.equal(latest.size, 2)
  t.equal(latest.get(a(2)), undefined, 'the one not stored since block 1')
  t.equal(latest.get(a(1)), '11', 'stored again at block 2: kept')
  t.equal(latest.get(a(3)), '3')
})
