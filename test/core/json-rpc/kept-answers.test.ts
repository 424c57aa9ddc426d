// createKeptAnswers(): the byte-bounded LRU of answers about blocks, filed by block number.
import t from 'tap'
import { ENTRY_OVERHEAD_BYTES, createKeptAnswers } from '../../../core/json-rpc/kept-answers.ts'

const size = (key: string, text: string): number => key.length + text.length + ENTRY_OVERHEAD_BYTES

t.test('kept answers count their bytes and drop the least recently used past the limit', async (t) => {
  const one = size('a', '"1"')
  const kept = createKeptAnswers(one * 3)
  kept.set('a', '"1"', 1)
  kept.set('b', '"2"', 2)
  kept.set('c', '"3"', 3)
  t.same(kept.stats(), { entries: 3, bytes: one * 3 })
  t.equal(kept.get('a'), '"1"', 'a is used: b is now the least recently used')
  kept.set('d', '"4"', 4)
  t.equal(kept.get('b'), undefined, 'b went first')
  t.equal(kept.get('a'), '"1"')
  t.equal(kept.get('c'), '"3"')
  t.equal(kept.get('d'), '"4"')
  t.same(kept.stats(), { entries: 3, bytes: one * 3 })
})

t.test('kept answers replace a key in place and refuse one answer larger than the limit', async (t) => {
  const kept = createKeptAnswers(size('k', '"12345"'))
  kept.set('k', '"1"', 1)
  kept.set('k', '"12345"', 1)
  t.same(kept.stats(), { entries: 1, bytes: size('k', '"12345"') }, 'the old bytes are no longer counted')
  kept.set('big', '"' + 'x'.repeat(200) + '"', 1)
  t.equal(kept.get('big'), undefined, 'too large alone: not kept')
  t.equal(kept.get('k'), '"12345"', 'and nothing was evicted for it')
})

t.test('kept answers drop every answer above a block, and their bytes', async (t) => {
  const kept = createKeptAnswers(1_000_000)
  for (let block = 0; block < 10; block++) {
    kept.set(`balance${block}`, `"${block}"`, block)
    kept.set(`block${block}`, `{"number":"${block}"}`, block)
  }
  kept.dropAbove(6)
  t.equal(kept.stats().entries, 14)
  t.equal(kept.stats().bytes, [...Array(7).keys()].reduce((n, b) => n + size(`balance${b}`, `"${b}"`) + size(`block${b}`, `{"number":"${b}"}`), 0))
  t.equal(kept.get('balance6'), '"6"')
  t.equal(kept.get('balance7'), undefined)
  t.equal(kept.get('block9'), undefined)
  // Evicted entries leave the block index too: dropping later must not count them twice.
  const small = createKeptAnswers(size('x1', '"1"') * 2)
  small.set('x1', '"1"', 1)
  small.set('x2', '"2"', 2)
  small.set('x3', '"3"', 3)
  small.dropAbove(0)
  t.same(small.stats(), { entries: 0, bytes: 0 })
  kept.clear()
  t.same(kept.stats(), { entries: 0, bytes: 0 })
})
