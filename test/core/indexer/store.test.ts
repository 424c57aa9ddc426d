// The store stage's balances carried forward (store.ts): an address a block
// shows without changing its balance (here the logging contract, called
// without value) gets the value of its last row, from what the store
// remembers of its own commits (latest-balances.ts) or else from the database.
import t from 'tap'
import type { Knex } from 'knex'
import { openDatabase } from '../../../core/db/index.ts'
import { fetchBlockBundles } from '../../../core/indexer/fetch.ts'
import { decodeBlockBundle } from '../../../core/indexer/decode.ts'
import { fetchBlockStates } from '../../../core/indexer/state.ts'
import { storeBlocks } from '../../../core/indexer/store.ts'
import { createLatestBalances } from '../../../core/indexer/latest-balances.ts'
import type { BlockRows, Hex } from '../../../core/indexer/types.ts'
import { createTestDatabase } from '../../support/database.ts'
import { sealBlocks, startFundedNode } from '../../support/blocks.ts'
import { wrongStoredBalances } from '../../support/indexer.ts'

const { node, wallets, dataDir, log } = await startFundedNode(t, 3)
const { head, logger } = await sealBlocks({ rpc: node.rpc, wallets, rounds: 6 })

/** Every block as its own batch, as when following the head: read block by block, the logger carried forward. */
async function blocks (): Promise<BlockRows[]> {
  const all = (await fetchBlockBundles(node.rpc, 0, head)).map(decodeBlockBundle)
  for (const rows of all) await fetchBlockStates(node.rpc, [rows])
  return all
}

async function open (): Promise<Knex> {
  const database = await openDatabase({ url: await createTestDatabase(t), dataDir, log })
  t.teardown(async () => await database.close())
  return database.knex
}

/** How many times the store looked balances up in coin_balances while `work` ran. */
async function lookups (db: Knex, work: () => Promise<void>): Promise<number> {
  let n = 0
  const count = (q: { sql: string }): void => { if (/from coin_balances p/.test(q.sql)) n++ }
  db.on('query', count)
  try { await work() } finally { db.off('query', count) }
  return n
}

const wrongBalances = async (db: Knex): Promise<string[]> => (await wrongStoredBalances(db, node.rpc)).wrong

const loggerAddress = logger.toLowerCase() as Hex
const all = await blocks()
const carried = all.filter((rows) => rows.state.unchangedBalances?.includes(loggerAddress))

t.test('what the store remembers answers instead of the database, with the node\'s balances', async (t) => {
  t.ok(carried.length >= 2, `${carried.length} blocks call the logger without value`)
  const remembered = await open()
  const latest = createLatestBalances()
  t.equal(await lookups(remembered, async () => { for (const rows of all) await storeBlocks(remembered, [rows], latest) }), 0, 'no look-ups: each address was stored before it was carried')
  t.same(await wrongBalances(remembered), [], 'every row the node\'s')
  t.ok(latest.get(loggerAddress) !== undefined, 'the logger remembered')
  const looked = await open()
  t.equal(await lookups(looked, async () => { for (const rows of all) await storeBlocks(looked, [rows]) }), carried.length, 'without it, a look-up per block carrying the logger')
  t.same(await wrongBalances(looked), [], 'the same balances')
})

t.test('a remembered balance is the one used, and storing blocks again forgets them all', async (t) => {
  const db = await open()
  const latest = createLatestBalances()
  const last = carried[carried.length - 1]!
  for (const rows of all.filter((r) => r.block.number < last.block.number)) await storeBlocks(db, [rows], latest)
  latest.record([{ address: loggerAddress, block_number: last.block.number - 1, value: '12345' }])
  await storeBlocks(db, [last], latest)
  const row = await db('coin_balances').where({ address: Buffer.from(loggerAddress.slice(2), 'hex'), block_number: last.block.number }).first('value')
  t.equal(row.value, '12345', 'carried from memory, not read')
  // Not in the block stored again: only a forgetting store drops it.
  const other: Hex = `0x${'de'.repeat(20)}`
  latest.record([{ address: other, block_number: last.block.number, value: '1' }])
  await storeBlocks(db, [last], latest)
  t.equal(latest.get(other), undefined, 'blocks stored again: what was remembered may be gone from the database')
  const again = await db('coin_balances').where({ address: Buffer.from(loggerAddress.slice(2), 'hex'), block_number: last.block.number }).first('value')
  t.equal(again.value, (await node.rpc.batch<Hex>([{ method: 'eth_getBalance', params: [loggerAddress, '0x' + last.block.number.toString(16)] }])).map((b) => BigInt(b).toString())[0], 'and read again: the node\'s')
})
