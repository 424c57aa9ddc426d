// Following the head: Geth's newHeads notification wakes the indexer at once.
import t from 'tap'
import pino from 'pino'
import { JsonRpcProvider, Wallet } from 'ethers'
import { loadConfig } from '../../../core/config.ts'
import { openDatabase } from '../../../core/db/index.ts'
import { createIndexer } from '../../../core/indexer/index.ts'
import { nextEvent } from '../../../core/indexer/events.ts'
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
