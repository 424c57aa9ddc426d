// Following the head: Geth's newHeads notification wakes the indexer at once;
// follow() hands over the chain above the stored head, and a reorg as a value.
import t from 'tap'
import pino from 'pino'
import { JsonRpcProvider, Wallet } from 'ethers'
import { loadConfig } from '../../../core/config.ts'
import { openDatabase } from '../../../core/db/index.ts'
import { createIndexer } from '../../../core/indexer/index.ts'
import { nextEvent } from '../../../core/indexer/events.ts'
import { fetchHeadNumber } from '../../../core/indexer/fetch.ts'
import { follow, type FollowEvent } from '../../../core/indexer/follow.ts'
import { readIndexedHashes, readIndexedHead } from '../../../core/indexer/store.ts'
import type { Hex } from '../../../core/indexer/types.ts'
import type { NewHeads } from '../../../core/indexer/new-heads.ts'
import type { RpcCall, RpcClient } from '../../../core/rpc/client.ts'
import { createGethNode } from '../../../geth/node.ts'
import { createTestChainFiles, waitForReceipt } from '../../support/chain.ts'
import { createTestDatabase } from '../../support/database.ts'

const chain = await createTestChainFiles(t)
const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'warn' })
const node = await createGethNode({ config: loadConfig({ ...process.env, ...chain.env }), log })
await node.start()
t.teardown(async () => await node.stop())
const db = await openDatabase({ url: await createTestDatabase(t), dataDir: chain.dataDir, log })
t.teardown(async () => await db.close())

t.test('createIndexer() indexes a new block on its newHeads notification, not at the next poll', async (t) => {
  // A poll interval far longer than the test: only the WebSocket can wake it.
  const indexer = createIndexer({ db: db.knex, databaseUrl: db.url, rpc: node.rpc, wsUrl: node.wsUrl, log, headPollMs: 60_000 })
  indexer.start()
  t.teardown(async () => await indexer.stop())
  await nextEvent(indexer.events, 'block') // the genesis
  await new Promise((resolve) => setTimeout(resolve, 300)) // idle, waiting on the socket
  const provider = new JsonRpcProvider(node.rpc.url, 793788, { staticNetwork: true, cacheTimeout: -1 })
  t.teardown(() => provider.destroy())
  // Listening before sending: the indexer may announce the block before the receipt poll sees it.
  const announced = new Map<number, number>()
  t.teardown(indexer.events.subscribe((event) => {
    if (event.type === 'block') for (const b of event.blocks) announced.set(b.block.number, Date.now())
  }))
  const sent = await new Wallet(chain.account.privateKey, provider).sendTransaction({ to: Wallet.createRandom().address, value: 1n })
  const receipt = await waitForReceipt(provider, sent.hash)
  const receivedAt = Date.now()
  while (!announced.has(receipt!.blockNumber)) await nextEvent(indexer.events, 'block')
  const at = announced.get(receipt!.blockNumber)!
  t.ok(at - receivedAt < 2000, `indexed ${at - receivedAt} ms after the receipt (negative: before the receipt poll saw it)`)
})

/** follow() from `stored`, until its first event; the stream is closed after it. */
async function firstEvent (stored: { number: number, hash: Hex | undefined }): Promise<{ event: FollowEvent, done: boolean }> {
  const stop = new AbortController()
  const events = follow({
    rpc: node.rpc,
    db: db.knex,
    log,
    newHeads: { wait: async (ms) => await new Promise((resolve) => setTimeout(resolve, ms)), onHead: () => () => {}, live: () => false, close: () => {} },
    stored,
    nodeHead: await fetchHeadNumber(node.rpc),
    batchBlocks: 50,
    batchesInFlight: 2,
    headPollMs: 50,
    tokenCache: new Map(),
    onNodeHead: () => {},
    signal: stop.signal
  })
  const first = await events.next()
  // Caught up, a stream that goes on waits for the next head: still pending after a moment.
  const second = events.next().catch(() => ({ done: false }))
  const after = await Promise.race([second, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), 500))])
  stop.abort()
  await second
  return { event: first.value as FollowEvent, done: after !== 'pending' && after.done === true }
}

t.test('follow() yields the blocks above the stored head as a block event', async (t) => {
  const head = (await readIndexedHead(db.knex))!
  const below = (await readIndexedHashes(db.knex, head.number - 1, head.number - 1)).get(head.number - 1)!
  const { event } = await firstEvent({ number: head.number - 1, hash: below })
  t.equal(event.type, 'block')
  if (event.type !== 'block') return
  t.same(event.batch.map((rows) => rows.block.hash), [head.hash], 'the stored head\'s block, decoded')
  t.equal(event.nodeHead, head.number)
})

t.test('follow() yields a reorg, as a value, when the parent hash changes, and ends', async (t) => {
  const head = (await readIndexedHead(db.knex))!
  // The index says block head-1 has another hash than the one head's parent names.
  const { event, done } = await firstEvent({ number: head.number - 1, hash: `0x${'ab'.repeat(32)}` })
  t.same(event, { type: 'reorg', ancestor: head.number - 1 }, 'the highest height where the index and the node agree')
  t.ok(done, 'the stream ends: the writer follows again from the rolled-back head')
})

t.test('follow() yields a reorg when the node\'s head at our height is another block', async (t) => {
  const head = (await readIndexedHead(db.knex))!
  const { event } = await firstEvent({ number: head.number, hash: `0x${'cd'.repeat(32)}` })
  t.same(event, { type: 'reorg', ancestor: head.number })
})

/** Geth's newHeads as watchNewHeads() hands them on, announced by the test: listeners first, then the waiters wake. */
function announcer (): NewHeads & { announce (head: number): void } {
  const listeners = new Set<(head: number) => void>()
  const waiters = new Set<() => void>()
  return {
    wait: async (ms, signal) => await new Promise<void>((resolve) => {
      const done = (): void => { waiters.delete(done); clearTimeout(timer); resolve() }
      const timer = setTimeout(done, ms)
      waiters.add(done)
      signal.addEventListener('abort', done, { once: true })
    }),
    onHead: (listener) => { listeners.add(listener); return () => { listeners.delete(listener) } },
    live: () => true,
    close: () => {},
    announce: (head) => {
      for (const listener of listeners) listener(head)
      for (const wake of [...waiters]) wake()
    }
  }
}

/** The node's real client, noting each head read and each block fetched through it. */
function watchedRpc (): { rpc: RpcClient, headReads: () => number, fetched: number[] } {
  let headReads = 0
  const fetched: number[] = []
  const note = (calls: Array<{ method: string, params?: unknown[] }>): void => {
    for (const { method, params = [] } of calls) {
      if ((method === 'eth_getBlockByNumber' && params[0] === 'latest') || method === 'eth_blockNumber') headReads++
      if (method === 'eth_getBlockReceipts') fetched.push(Number(params[0]))
    }
  }
  const rpc: RpcClient = {
    ...node.rpc,
    call: async (method, params, signal) => { note([{ method, params }]); return await node.rpc.call(method, params, signal) },
    batchAnswers: async (calls: RpcCall[], signal) => { note(calls); return await node.rpc.batchAnswers(calls, signal) },
    batch: async (calls: RpcCall[], signal) => { note(calls); return await node.rpc.batch(calls, signal) }
  }
  return { rpc, headReads: () => headReads, fetched }
}

t.test('follow() fetches the head a notification names, without reading the head, also while the last batch is being stored', async (t) => {
  const provider = new JsonRpcProvider(node.rpc.url, 793788, { staticNetwork: true, cacheTimeout: -1 })
  t.teardown(() => provider.destroy())
  const seal = async (): Promise<number> => {
    const sent = await new Wallet(chain.account.privateKey, provider).sendTransaction({ to: Wallet.createRandom().address, value: 1n })
    return (await waitForReceipt(provider, sent.hash)).blockNumber
  }
  const first = await seal()
  const parent = (await node.rpc.call<{ hash: Hex }>('eth_getBlockByNumber', [`0x${(first - 1).toString(16)}`, false])).hash
  const heads = announcer()
  const watched = watchedRpc()
  const stop = new AbortController()
  t.teardown(() => stop.abort())
  const events = follow({
    rpc: watched.rpc,
    db: db.knex,
    log,
    newHeads: heads,
    stored: { number: first - 1, hash: parent },
    // The head as read before `first` was sealed; polls far apart, so only the notification can name `first`.
    nodeHead: first - 1,
    batchBlocks: 50,
    batchesInFlight: 4,
    headPollMs: 60_000,
    tokenCache: new Map(),
    onNodeHead: () => {},
    signal: stop.signal
  })
  const waiting = events.next()
  await new Promise((resolve) => setTimeout(resolve, 100)) // idle, waiting for a head
  heads.announce(first)
  const event = (await waiting).value as FollowEvent
  t.equal(event.type, 'block')
  if (event.type !== 'block') return
  t.same(event.batch.map((rows) => rows.block.number), [first])
  t.equal(watched.headReads(), 0, 'the head came from the notification, not from a head read over RPC')

  // The consumer is "storing" `first` (it has not asked for the next event): the next head is fetched meanwhile.
  const second = await seal()
  heads.announce(second)
  const deadline = Date.now() + 30_000
  while (!watched.fetched.includes(second) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  t.ok(watched.fetched.includes(second), `block ${second} fetched before the consumer asked for it`)
  const next = (await events.next()).value as FollowEvent
  t.same(next.type === 'block' ? next.batch.map((rows) => rows.block.number) : next, [second])
  t.equal(watched.headReads(), 0)
  stop.abort()
  await events.return()
})
