import t from 'tap'
import { findCommonAncestor } from '../../../core/indexer/reorg.ts'
import type { Hex } from '../../../core/indexer/types.ts'

const h = (branch: string, n: number): Hex => `0x${branch}${n.toString(16).padStart(63, '0')}`
const indexedChain = (top: number, forkAbove: number) => async (from: number, to: number) => {
  const map = new Map<number, Hex>()
  for (let n = from; n <= Math.min(to, top); n++) map.set(n, h(n > forkAbove ? 'b' : 'a', n))
  return map
}
const nodeChain = (top: number) => async (numbers: number[]) => numbers.map((n) => n <= top ? h('a', n) : null)

t.test('findCommonAncestor() finds the last shared height, even deep', async (t) => {
  t.equal(await findCommonAncestor(100, indexedChain(100, 97), nodeChain(120)), 97)
  t.equal(await findCommonAncestor(500, indexedChain(500, 3), nodeChain(500)), 3, 'more than one walk-back step deep')
  t.equal(await findCommonAncestor(50, indexedChain(50, 50), nodeChain(40)), 40, 'the node is shorter than the index')
})

t.test('findCommonAncestor() answers -1 when nothing is shared, genesis included', async (t) => {
  const other = async (numbers: number[]) => numbers.map((n) => h('c', n))
  t.equal(await findCommonAncestor(10, indexedChain(10, 10), other), -1)
})
