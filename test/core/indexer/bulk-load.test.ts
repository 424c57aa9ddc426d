// Bulk load (core/indexer/bulk-load.ts) and the one-call balance scan
// (balance-scanner.ts): a chain indexed with indexes and running sums deferred
// ends exactly as one indexed incrementally, and blocks deleted in the middle
// of a load leave the sums right. (kill -9 in the middle of a load: crash.test.ts.)
import t, { type Test } from 'tap'
import { Writable } from 'node:stream'
import pino from 'pino'
import { Contract, ContractFactory, JsonRpcProvider, Wallet } from 'ethers'
import type { Knex } from 'knex'
import { openDatabase, type Database } from '../../../core/db/index.ts'
import { createIndexer } from '../../../core/indexer/index.ts'
import { fetchBlockBundles } from '../../../core/indexer/fetch.ts'
import { decodeBlockBundle } from '../../../core/indexer/decode.ts'
import { fetchBlockStates, touchedAddresses } from '../../../core/indexer/state.ts'
import { fetchTokens } from '../../../core/indexer/tokens.ts'
import { deleteBlocksAbove, storeBlocks } from '../../../core/indexer/store.ts'
import { applyDeferredSums, readBulkLoad, shouldBulkLoad, startBulkLoad } from '../../../core/indexer/bulk-load.ts'
import { balanceScan, SCAN_MAX_ADDRESSES } from '../../../core/indexer/balance-scanner.ts'
import type { Hex } from '../../../core/indexer/types.ts'
import { createTestDatabase } from '../../support/database.ts'
import { waitForReceipt } from '../../support/chain.ts'
import { sealBlocks, startFundedNode } from '../../support/blocks.ts'
import { compileContract, TEST_TOKEN_SOURCE } from '../../support/contracts.ts'

const TABLES = ['blocks', 'transactions', 'logs', 'internal_transactions', 'token_transfers', 'tokens', 'token_balances', 'coin_balances', 'addresses',
  // The Stats API's daily sums, kept by the store in bulk loads too.
  'stats_daily', 'stats_day_senders']

const { node, wallets, dataDir, log } = await startFundedNode(t, 4)
const provider = new JsonRpcProvider(node.rpc.url, 793788, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())

// Blocks with calls, transfers and a failing call each, then a token moving between holders.
await sealBlocks({ rpc: node.rpc, wallets, rounds: 30 })
const owner = wallets[0]!.connect(provider)
const compiled = await compileContract(TEST_TOKEN_SOURCE, 'TestToken')
const token = await new ContractFactory(compiled.abi as never, compiled.bytecode, owner).deploy('Bulk', 'BLK', 10n ** 6n) as Contract
const deployedAt = (await waitForReceipt(provider, token.deploymentTransaction()!.hash)).blockNumber
const holders = [wallets[1]!, Wallet.createRandom(), Wallet.createRandom()]
for (const [i, w] of holders.entries()) await waitForReceipt(provider, (await token.getFunction('transfer')(w.address, 1000n + BigInt(i))).hash)
// All of it back to the owner from one holder: the holder count goes down again.
await waitForReceipt(provider, (await (token.connect(wallets[1]!.connect(provider)) as Contract).getFunction('transfer')(owner.address, 1000n)).hash)
const { head } = await sealBlocks({ rpc: node.rpc, wallets, rounds: 20 })

async function open (): Promise<Database> {
  const database = await openDatabase({ url: await createTestDatabase(t), dataDir, log })
  t.teardown(async () => await database.close())
  return database
}

/** Indexes to the head with this threshold; returns what the indexer logged. */
async function indexToHead (t: Test, database: Database, bulkLoadMinBlocks: number): Promise<string[]> {
  const lines: string[] = []
  const sink = new Writable({ write (chunk, _encoding, done) { lines.push(String(chunk)); done() } })
  const indexer = createIndexer({ db: database.knex, databaseUrl: database.url, rpc: node.rpc, log: pino({ level: 'info' }, sink), batchBlocks: 10, bulkLoadMinBlocks })
  indexer.start()
  try {
    for (let i = 0; i < 600 && indexer.status().indexedHead !== head; i++) await new Promise((resolve) => setTimeout(resolve, 50))
  } finally {
    await indexer.stop()
  }
  t.equal(indexer.status().indexedHead, head, 'indexed to the head')
  return lines.map((l) => JSON.parse(l).msg as string)
}

/** Every row of every table the indexer writes, as text, in a stable order. */
async function contents (db: Knex): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {}
  for (const table of TABLES) out[table] = (await db.raw(`select x::text as row from ${table} x order by 1`)).rows.map((r: { row: string }) => r.row)
  return out
}

/** Every index and constraint (foreign keys with their cascades) as PostgreSQL defines it. */
async function indexes (db: Knex): Promise<string[]> {
  const { rows } = await db.raw(`
    select indexdef as definition from pg_indexes where schemaname = current_schema()
    union all
    select conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) from pg_constraint where connamespace = current_schema()::regnamespace
    order by 1`)
  return rows.map((r: { definition: string }) => r.definition)
}

const incremental = await open()
const bulk = await open()

t.test('the balance scan answers what eth_getBalance answers, block by block', async (t) => {
  const bundles = await fetchBlockBundles(node.rpc, 1, head)
  for (const bundle of bundles) {
    const rows = decodeBlockBundle(bundle)
    const { changed, unchanged } = touchedAddresses(rows)
    const addresses: Hex[] = [...changed, ...unchanged, Wallet.createRandom().address.toLowerCase() as Hex, await token.getAddress() as Hex]
    const at = { blockHash: rows.block.hash, requireCanonical: false }
    const scan = balanceScan(addresses, at)
    const scanned = scan.read(await node.rpc.batch(scan.calls))
    const one = await node.rpc.batch<Hex>(addresses.map((a) => ({ method: 'eth_getBalance', params: [a, at] })))
    t.same(scanned, one.map((b) => BigInt(b).toString()), `block ${rows.block.number}`)
  }
  const latest = { blockHash: (await node.rpc.call<{ hash: Hex }>('eth_getBlockByNumber', ['latest', false])).hash, requireCanonical: false }
  const two = balanceScan([wallets[0]!.address.toLowerCase() as Hex, wallets[1]!.address.toLowerCase() as Hex], latest)
  t.throws(() => two.read(['0x' + '00'.repeat(32)]), /balance scan answered/, 'an answer of the wrong length is refused')
})

t.test('more addresses than one call\'s gas can read are read in several calls', async (t) => {
  const at = { blockHash: (await node.rpc.call<{ hash: Hex }>('eth_getBlockByNumber', ['latest', false])).hash, requireCanonical: false }
  const funded = wallets.map((w) => w.address.toLowerCase() as Hex)
  // 20,000 at about 3,000 gas each: more than Geth's eth_call cap of 50,000,000.
  const empty = Array.from({ length: 20_000 }, (_, i) => `0x${(0xe0000 + i).toString(16).padStart(40, '0')}` as Hex)
  await t.rejects(node.rpc.batch(balanceScan(empty, at, empty.length).calls), 'one call for all of them fails')
  const scan = balanceScan([...funded, ...empty], at)
  t.equal(scan.calls.length, Math.ceil((funded.length + empty.length) / SCAN_MAX_ADDRESSES), `split into calls of ${SCAN_MAX_ADDRESSES}`)
  const scanned = scan.read(await node.rpc.batch(scan.calls))
  const one = await node.rpc.batch<Hex>(funded.map((a) => ({ method: 'eth_getBalance', params: [a, at] })))
  t.same(scanned.slice(0, funded.length), one.map((b) => BigInt(b).toString()), 'the funded wallets\' balances')
  t.ok(scanned.slice(0, funded.length).every((b) => b !== '0'), 'which are not zero')
  t.equal(scanned.length, funded.length + empty.length, 'a balance for every address')
  t.ok(scanned.slice(funded.length).every((b) => b === '0'), 'nothing for the empty ones')
})

t.test('shouldBulkLoad(): only a long backlog, longer than what is stored', async (t) => {
  t.ok(shouldBulkLoad(-1, 5000, 1000), 'an empty database far behind')
  t.notOk(shouldBulkLoad(-1, 500, 1000), 'a short backlog')
  t.notOk(shouldBulkLoad(4000, 6000, 1000), 'more stored than left to do: rebuilding indexes would cost more')
  t.notOk(shouldBulkLoad(-1, 5000, 0), '0 turns it off')
})

t.test('a bulk-loaded index equals an incrementally built one, indexes included', async (t) => {
  const incrementalLog = await indexToHead(t, incremental, 0)
  t.notOk(incrementalLog.some((m) => m.startsWith('bulk load')), 'threshold 0: no bulk load')
  const bulkLog = await indexToHead(t, bulk, 20)
  t.ok(bulkLog.includes('bulk load: indexes and running sums are built once near the head'), 'it bulk-loaded')
  t.ok(bulkLog.includes('bulk load finished: indexes and running sums built'), 'and finished near the head')
  t.equal(await readBulkLoad(bulk.knex), undefined, 'no load left open')
  t.same(await bulk.knex('indexer_deferred_indexes').select(), [], 'no index left deferred')
  t.same(await indexes(bulk.knex), await indexes(incremental.knex), 'every index and foreign key is back, as defined')
  const expected = await contents(incremental.knex)
  t.ok(expected.token_balances!.length > 0 && expected.addresses!.length > 0, 'there are running sums to compare')
  t.same(await contents(bulk.knex), expected, 'every row of every table is the same')
  for (const row of await bulk.knex('addresses').select('hash', 'coin_balance')) {
    t.equal(row.coin_balance, (await provider.getBalance('0x' + row.hash.toString('hex'))).toString())
  }
})

t.test('every coin balance row, read from the node or carried forward, is the balance at its block', async (t) => {
  const rows = await bulk.knex('coin_balances').orderBy(['block_number', 'address']).select('address', 'block_number', 'value')
  const answers = await node.rpc.batch<Hex>(rows.map((r) => ({ method: 'eth_getBalance', params: ['0x' + r.address.toString('hex'), '0x' + Number(r.block_number).toString(16)] })))
  const wrong = rows.filter((r, i) => r.value !== BigInt(answers[i]!).toString()).map((r) => `0x${r.address.toString('hex')} at ${r.block_number}`)
  t.same(wrong, [], `all ${rows.length} rows`)
  // The chain has both kinds: token holders whose balance a transfer left alone, and fee payers.
  let carried = 0
  for (const bundle of await fetchBlockBundles(node.rpc, deployedAt, head)) carried += touchedAddresses(decodeBlockBundle(bundle)).unchanged.length
  t.ok(carried > 0, `${carried} rows carried forward rather than read`)
})

/** A bulk load of blocks 0..`to` stored the way the indexer stores it, left open. */
async function bulkLoadTo (t: Test, database: Database, to: number): Promise<void> {
  t.ok(await startBulkLoad(database.knex, -1, log), 'a load starts')
  const cache = new Map()
  const fetched = async (from: number, to: number) => {
    const batch = (await fetchBlockBundles(node.rpc, from, to)).map(decodeBlockBundle)
    await fetchBlockStates(node.rpc, batch)
    await fetchTokens(node.rpc, batch, cache)
    return batch
  }
  // Two fetched batches in one transaction, as the indexer stores them when its store lags:
  // a token seen in both is written once.
  for (let from = 0; from <= to; from += 4) {
    const last = Math.min(from + 3, to)
    const middle = Math.min(from + 1, last)
    await storeBlocks(database.knex, [...await fetched(from, middle), ...(middle < last ? await fetched(middle + 1, last) : [])])
  }
}

t.test('deleting blocks in the middle of a bulk load first finishes it: the sums stay right', async (t) => {
  const partial = await open()
  await bulkLoadTo(t, partial, head)
  t.same(await partial.knex('token_balances').select(), [], 'while loading, the sums wait')
  t.ok(await partial.knex('indexer_deferred_indexes').where('kind', 'index').first(), 'indexes are deferred')
  t.ok(await partial.knex('indexer_deferred_indexes').where('kind', 'foreign key').first(), 'and foreign keys')
  // Every token transfer's share is taken back out of the sums.
  await deleteBlocksAbove(partial.knex, deployedAt)
  t.equal(await readBulkLoad(partial.knex), undefined, 'the delete finished the load first')
  await indexToHead(t, partial, 0)
  t.same(await contents(partial.knex), await contents(incremental.knex), 'indexed again to the head, it equals the incremental index')
  t.same(await indexes(partial.knex), await indexes(incremental.knex))
})

t.test('indexes still deferred after the sums were done (a crash between the two) are built by the next start', async (t) => {
  const interrupted = await open()
  await bulkLoadTo(t, interrupted, head - 5)
  t.ok(await interrupted.knex.transaction(applyDeferredSums), 'the sums commit on their own')
  t.equal(await readBulkLoad(interrupted.knex), undefined)
  t.ok((await interrupted.knex('indexer_deferred_indexes').count({ n: '*' }).first())!.n !== '0', 'indexes are still deferred')
  const lines = await indexToHead(t, interrupted, 0)
  t.ok(lines.includes('bulk load finished: indexes and running sums built'), 'the next start finished them')
  t.same(await interrupted.knex('indexer_deferred_indexes').select(), [])
  t.same(await indexes(interrupted.knex), await indexes(incremental.knex), 'every index is back')
  t.same(await contents(interrupted.knex), await contents(incremental.knex), 'and every row as an incremental index has it')
})
