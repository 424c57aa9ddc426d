// The indexing status judged as Blockscout judges it: by what is missing below
// the tip, so the newest block not indexed yet does not flip it to unfinished.
import t from 'tap'
import { indexingStatus, TIP_LAG_BLOCKS } from '../../../../core/queries/blocks/indexing-status.ts'

const done = { finished_indexing: true, finished_indexing_blocks: true, indexed_blocks_ratio: '1', indexed_internal_transactions_ratio: '1' }
const unfinished = (ratio: string) => ({ finished_indexing: false, finished_indexing_blocks: false, indexed_blocks_ratio: ratio, indexed_internal_transactions_ratio: null })
const chain = (highest: number) => ({ count: highest + 1, lowest: 0, highest })

t.test('indexingStatus() is finished when the index holds every block up to the tip', async (t) => {
  t.same(indexingStatus(chain(40), 40), done)
})

t.test('indexingStatus() stays finished while the newest blocks are not in yet (tip lag)', async (t) => {
  // 41 blocks stored of 42: 0.97 by the node's head, the flicker the front end showed as "indexing".
  t.same(indexingStatus(chain(40), 41), done)
  t.same(indexingStatus(chain(40), 40 + TIP_LAG_BLOCKS), done)
  t.same(indexingStatus(chain(40), 40 + TIP_LAG_BLOCKS + 10), unfinished('0.80'))
})

t.test('indexingStatus() counts blocks missing below the tip', async (t) => {
  t.same(indexingStatus({ count: 30, lowest: 0, highest: 40 }, 40), unfinished('0.73'))
  t.same(indexingStatus({ count: 30, lowest: 11, highest: 40 }, 40), unfinished('0.73'), 'the start of the chain missing')
})

t.test('indexingStatus() rounds 0.99 and up to 1 once block 0 is in, as Blockscout', async (t) => {
  t.same(indexingStatus({ count: 995, lowest: 0, highest: 999 }, 999), done)
  t.same(indexingStatus({ count: 995, lowest: 5, highest: 999 }, 999), unfinished('0.99'), 'not without the first block')
})

t.test('indexingStatus() of a backfill far behind and of an empty index', async (t) => {
  t.same(indexingStatus(chain(499), 999 + TIP_LAG_BLOCKS), unfinished('0.50'))
  t.same(indexingStatus({ count: 0, lowest: null, highest: null }, 1000), unfinished('0.00'))
  t.same(indexingStatus({ count: 0, lowest: null, highest: null }, 0), done, 'a node still at genesis has nothing much to index')
})
