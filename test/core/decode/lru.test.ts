import t from 'tap'
import { createLru } from '../../../core/decode/lru.ts'

t.test('createLru() evicts the least recently used entry beyond its bound', async (t) => {
  const lru = createLru<number>(2)
  lru.set('a', 1)
  lru.set('b', 2)
  t.equal(lru.get('a'), 1, 'a is now the most recent')
  lru.set('c', 3)
  t.equal(lru.size, 2)
  t.equal(lru.get('b'), undefined, 'b was evicted')
  t.equal(lru.get('a'), 1)
  t.equal(lru.get('c'), 3)
  lru.clear()
  t.equal(lru.size, 0)
})
