// createAnswerCache() on heads told by the test and a scripted canonical chain:
// what is kept, until when, single flights, and the drops of a reorg.
import t from 'tap'
import pino from 'pino'
import { createAnswerCache, type AnswerCache, type HeardHead } from '../../../core/json-rpc/answer-cache.ts'
import type { CachePlan } from '../../../core/json-rpc/cache-plan.ts'

const ADDRESS = '0x00000000000000000000000000000000000000ab'
const hashOf = (chain: string, n: number): string => '0x' + (chain + n.toString(16)).padStart(64, '0')
const head = (chain: string, n: number, parentChain = chain): HeardHead => ({ number: n, hash: hashOf(chain, n), parentHash: hashOf(parentChain, n - 1) })

function setup (maxBytes = 1_000_000) {
  /** The node's canonical hash per number; the test rewrites it for a reorg. */
  const canonical = new Map<number, string>()
  const asked: number[] = []
  const cache = createAnswerCache({
    maxBytes,
    canonicalHash: async (n) => { asked.push(n); return canonical.get(n) },
    log: pino({ level: 'silent' })
  })
  const hear = (h: HeardHead): void => {
    canonical.set(h.number, h.hash)
    cache.heard(h)
  }
  return { cache, canonical, asked, hear }
}

/** Plans, misses, settles with `text` and returns the plan. */
function fill (cache: AnswerCache, method: string, params: unknown[], text: string): CachePlan {
  const plan = cache.plan(method, params)!
  if (cache.find(plan) !== undefined) throw new Error(`${method} was kept already`)
  cache.join(plan).settle!({ text })
  return plan
}

const settle = async (): Promise<void> => await new Promise((resolve) => setImmediate(resolve))

t.test('the cache keeps nothing before it hears a head, and answers for latest until the next one', async (t) => {
  const { cache, hear } = setup()
  t.equal(cache.plan('eth_blockNumber', []), undefined, 'no head heard: every call is forwarded')
  hear(head('a', 1))
  const plan = fill(cache, 'eth_blockNumber', [], '"0x1"')
  t.equal(cache.find(plan), '"0x1"')
  hear(head('a', 2))
  t.equal(cache.find(cache.plan('eth_blockNumber', [])!), undefined, 'a new head empties what answered for latest')
  t.equal(cache.head(), 2)
})

t.test('an answer asked before a head came is not kept after it', async (t) => {
  const { cache, hear } = setup()
  hear(head('a', 1))
  const plan = cache.plan('eth_getBalance', [ADDRESS, 'latest'])!
  const flight = cache.join(plan)
  hear(head('a', 2))
  flight.settle!({ text: '"0x5"' })
  t.same(await flight.answer, { text: '"0x5"' }, 'the asker still gets it')
  t.equal(cache.find(plan), undefined, 'but it may describe block 1, older than the head heard')
  const again = cache.join(plan)
  t.not(again.settle, undefined, 'a call after the head does not join the older flight')
})

t.test('identical misses share one flight; errors are passed on and never kept', async (t) => {
  const { cache, hear } = setup()
  hear(head('a', 1))
  const plan = cache.plan('eth_call', [{ to: ADDRESS, data: '0x' }, 'latest'])!
  const first = cache.join(plan)
  const second = cache.join(plan)
  t.equal(second.settle, undefined, 'the second waits for the first')
  first.settle!({ error: { code: 3, message: 'execution reverted' } })
  t.same(await second.answer, { error: { code: 3, message: 'execution reverted' } })
  t.equal(cache.find(plan), undefined, 'an error is not kept')
  const third = cache.join(plan)
  t.not(third.settle, undefined, 'a settled flight is no longer joined')
  third.fail!(new Error('node down'))
  await t.rejects(third.answer, /node down/)
  t.equal(cache.stats().joined, 1)
})

t.test('answers about blocks are kept at or below the head heard, null ones never', async (t) => {
  const { cache, hear } = setup()
  hear(head('a', 5))
  const block = fill(cache, 'eth_getBlockByNumber', ['0x5', false], '{"number":"0x5"}')
  const above = fill(cache, 'eth_getBlockByNumber', ['0x6', false], '{"number":"0x6"}')
  const missing = fill(cache, 'eth_getBlockByNumber', ['0x4', true], 'null')
  const receipt = fill(cache, 'eth_getTransactionReceipt', ['0x' + '1'.repeat(64)], '{"blockNumber":"0x3"}')
  const pendingTx = fill(cache, 'eth_getTransactionByHash', ['0x' + '2'.repeat(64)], '{"blockNumber":null}')
  const atHash = fill(cache, 'eth_getBalance', [ADDRESS, hashOf('a', 4)], '"0x9"')
  const atUnknownHash = fill(cache, 'eth_getBalance', [ADDRESS, '0x' + 'e'.repeat(64)], '"0x9"')
  hear(head('a', 6))
  t.equal(cache.find(block), '{"number":"0x5"}', 'kept past the head')
  t.equal(cache.find(above), undefined, 'above the head heard then: not kept')
  t.equal(cache.find(missing), undefined, 'null: not kept')
  t.equal(cache.find(receipt), '{"blockNumber":"0x3"}', 'a mined transaction\'s receipt')
  t.equal(cache.find(pendingTx), undefined, 'a pending transaction: not kept')
  t.equal(cache.find(atHash), '"0x9"', 'state at a head heard, by its hash (the parent of the first head)')
  t.equal(cache.find(atUnknownHash), undefined, 'state at a hash not heard: not kept')
})

t.test('a reorg drops every answer above the fork point before the new head is served', async (t) => {
  const { cache, canonical, asked, hear } = setup()
  for (let n = 1; n <= 10; n++) hear(head('a', n))
  const kept = Array.from({ length: 10 }, (_, i) => fill(cache, 'eth_getBlockByNumber', ['0x' + (i + 1).toString(16), false], `{"number":"${i + 1}"}`))
  // The node switched to branch b from block 8 on and announces b's 9.
  canonical.set(8, hashOf('b', 8))
  canonical.set(9, hashOf('b', 9))
  canonical.delete(10)
  cache.heard(head('b', 9))
  t.equal(cache.plan('eth_blockNumber', []), undefined, 'suspended while the fork point is looked for')
  t.equal(cache.head(), undefined)
  const during = cache.join(kept[0]!)
  await settle()
  await settle()
  t.equal(cache.head(), 9)
  t.same(asked.slice(0, 2), [8, 7], 'compared from the new head\'s parent down')
  for (const [i, plan] of kept.entries()) t.equal(cache.find(plan) !== undefined, i + 1 <= 7, `block ${i + 1} ${i + 1 <= 7 ? 'kept' : 'dropped'}`)
  during.settle!({ text: '"late"' })
  t.equal(cache.find(kept[0]!), '{"number":"1"}', 'what was asked while suspended is not kept')
  t.equal(cache.stats().reorgs, 1)
  // A head on branch b follows without a search.
  const before = asked.length
  hear(head('b', 10))
  t.equal(cache.head(), 10)
  t.equal(asked.length, before)
})

t.test('a new head whose parent is a head heard before finds the fork point without asking', async (t) => {
  const { cache, asked, hear } = setup()
  for (let n = 1; n <= 4; n++) hear(head('a', n))
  const three = fill(cache, 'eth_getBalance', [ADDRESS, '0x3'], '"0x3"')
  const four = fill(cache, 'eth_getBalance', [ADDRESS, '0x4'], '"0x4"')
  hear(head('c', 4, 'a'))
  await settle()
  t.same(asked, [])
  t.equal(cache.find(three), '"0x3"')
  t.equal(cache.find(four), undefined, 'block 4 was replaced')
})

t.test('after the subscription is lost the cache waits for a head and checks it as a possible reorg', async (t) => {
  const { cache, canonical, hear } = setup()
  for (let n = 1; n <= 5; n++) hear(head('a', n))
  const four = fill(cache, 'eth_getBalance', [ADDRESS, '0x4'], '"0x4"')
  const two = fill(cache, 'eth_getBalance', [ADDRESS, '0x2'], '"0x2"')
  cache.lost()
  t.equal(cache.plan('eth_blockNumber', []), undefined, 'no head to trust: forwarded')
  // Missed while lost: a reorg from block 3, then b's 4..7.
  for (let n = 3; n <= 7; n++) canonical.set(n, hashOf('b', n))
  cache.heard(head('b', 7))
  await settle()
  await settle()
  t.equal(cache.head(), 7)
  t.equal(cache.find(four), undefined)
  t.equal(cache.find(two), '"0x2"')
})

t.test('a fork deeper than the heads remembered, or a failed search, drops everything', async (t) => {
  const { cache, canonical, hear } = setup()
  for (let n = 1; n <= 3; n++) hear(head('a', n))
  const one = fill(cache, 'eth_getBalance', [ADDRESS, '0x1'], '"0x1"')
  canonical.clear()
  cache.heard(head('z', 4))
  await settle()
  await settle()
  t.equal(cache.head(), 4)
  t.equal(cache.find(one), undefined)
  t.equal(cache.stats().entries, 0)
})

t.test('answers for latest take at most a quarter of the bytes again; the rest are refused until the next head', async (t) => {
  const { cache, hear } = setup(4000)
  hear(head('a', 1))
  let keptCount = 0
  for (let i = 0; i < 50; i++) {
    const plan = fill(cache, 'eth_call', [{ to: ADDRESS, data: '0x' + i.toString(16).padStart(2, '0') }, 'latest'], '"0x' + '0'.repeat(40) + '"')
    if (cache.find(plan) !== undefined) keptCount++
  }
  t.ok(keptCount > 0 && keptCount < 50, `${keptCount} of 50 kept`)
  t.ok(cache.stats().headBytes <= 1000)
})

t.test('an answer showing a block newer than the head heard drops what answered for latest', async (t) => {
  const { cache, hear } = setup()
  hear(head('a', 1))
  const balance = fill(cache, 'eth_getBalance', [ADDRESS, 'latest'], '"0x1"')
  // Geth sealed block 2; its receipt comes back before newHeads does.
  const receipt = fill(cache, 'eth_getTransactionReceipt', ['0x' + '3'.repeat(64)], '{"blockNumber":"0x2"}')
  t.equal(cache.find(balance), undefined, 'the client saw block 2: latest answers of block 1 go')
  t.equal(cache.find(receipt), undefined, 'and the receipt of a block not heard is not kept')
  const again = fill(cache, 'eth_getBalance', [ADDRESS, 'latest'], '"0x2"')
  t.equal(cache.find(again), '"0x2"', 'answers asked after it are kept')
  fill(cache, 'eth_blockNumber', [], '"0x2"')
  t.equal(cache.find(again), '"0x2"', 'block 2 shown again changes nothing')
  fill(cache, 'eth_getBlockByNumber', ['0x3', false], '{"number":"0x3"}')
  t.equal(cache.find(again), undefined, 'a newer block does')
})

t.test('after a reorg to a shorter branch, a block shown above the new head drops the latest answers again', async (t) => {
  const { cache, canonical, hear } = setup()
  for (let n = 1; n <= 10; n++) hear(head('a', n))
  fill(cache, 'eth_blockNumber', [], '"0xb"')
  // Branch b from block 7, heard at its 8.
  for (let n = 8; n <= 10; n++) canonical.delete(n)
  hear(head('b', 8, 'a'))
  await settle()
  await settle()
  t.equal(cache.head(), 8)
  const balance = fill(cache, 'eth_getBalance', [ADDRESS, 'latest'], '"0x8"')
  fill(cache, 'eth_getTransactionReceipt', ['0x' + '4'.repeat(64)], '{"blockNumber":"0x9"}')
  t.equal(cache.find(balance), undefined, 'block 9 of branch b was shown: the answers of block 8 go')
})

t.test('an answer another node gave while ours was down (RPC_UPSTREAMS) is passed on, never kept', async (t) => {
  const { cache, hear } = setup()
  hear(head('a', 1))
  for (const [method, params] of [['eth_blockNumber', []], ['eth_getBlockByNumber', ['0x1', false]]] as const) {
    const plan = cache.plan(method, [...params])!
    const flight = cache.join(plan)
    flight.settle!({ text: '"0x7"', upstream: 'http://127.0.0.1:1' })
    t.same(await flight.answer, { text: '"0x7"', upstream: 'http://127.0.0.1:1' }, `${method}: the asker gets it`)
    t.equal(cache.find(plan), undefined, `${method}: it is of the upstream's head, not of the heads heard`)
  }
  t.equal(cache.find(fill(cache, 'eth_blockNumber', [], '"0x1"')), '"0x1"', 'the local node\'s answer is kept')
})
