// A gateway killed with -9 in the middle of a backfill, then started again:
// the orphaned Geth is stopped, the backfill resumes, and the index ends up
// exactly the node's chain: nothing duplicated, nothing missing.
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import knex from 'knex'
import pino from 'pino'
import { loadConfig } from '../../../core/config.ts'
import { isProcessAlive, readEndpoints } from '../../../core/endpoints.ts'
import { createGethNode } from '../../../geth/node.ts'
import { createRpcClient } from '../../../core/rpc/client.ts'
import { createTestChainFiles } from '../../support/chain.ts'
import { createTestDatabase } from '../../support/database.ts'
import { sealBlocks, writeFundedAlloc } from '../../support/blocks.ts'
import { runOps, startGatewayProcess, waitFor, type GatewayProcess } from '../../support/gateway-process.ts'

// About 420 blocks and 2,000 transactions: a backfill of about two seconds on two cores.
const ROUNDS = 200
const WALLETS = 10

const chain = await createTestChainFiles(t)
const { wallets, allocFile } = await writeFundedAlloc(t, WALLETS)
const databaseUrl = await createTestDatabase(t)
// Far enough behind to bulk-load (core/indexer/bulk-load.ts): the kill lands in the middle of one.
const BULK_LOAD_MIN_BLOCKS = 100
const BATCH_BLOCKS = 50
const env = { ...chain.env, GENESIS_ALLOC: allocFile, DATABASE_URL: databaseUrl, GETH_RPC_URL: '', INDEXER_BULK_LOAD_MIN_BLOCKS: String(BULK_LOAD_MIN_BLOCKS) }

// The chain is built first, with the gateway's own Geth code, then that Geth stops.
const node = await createGethNode({ config: loadConfig({ ...process.env, ...env }), log: pino({ level: 'warn' }) })
await node.start()
const built = await sealBlocks({ rpc: node.rpc, wallets, rounds: ROUNDS })
await node.stop()

const db = knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 2 } })
t.teardown(async () => await db.destroy())
const countBlocks = async () => Number((await db('blocks').count({ n: '*' }).first())!.n)
const gethPid = async () => Number(await readFile(join(chain.dataDir, 'geth.pid'), 'utf8'))

// Gateways live across subtests: their teardown (kill, leftovers) belongs to the file.
const root = t
let first: GatewayProcess
let second: GatewayProcess

t.test('a gateway killed with -9 mid-backfill leaves part of the index behind', async (t) => {
  first = await startGatewayProcess(root, env)
  // Migrations are in once it serves; then some blocks, but not all.
  await waitFor('part of the backfill', async () => await countBlocks() > 0 ? true : undefined, 60_000)
  first.kill('SIGKILL')
  t.same(await first.exited, { code: null, signal: 'SIGKILL' })
  const stored = await countBlocks()
  t.ok(stored <= built.head, `killed with ${stored} of ${built.head + 1} blocks stored (not all: the backfill was interrupted)`)
  t.equal(await readEndpoints(chain.dataDir), undefined, 'its endpoints.json names a dead process')
  // A load finishes within a batch of the head; below that it must still be open.
  if (stored < built.head - BATCH_BLOCKS) {
    t.ok(await db('indexer_bulk_load').first(), 'killed in the middle of a bulk load')
    t.ok(Number((await db('indexer_deferred_indexes').count({ n: '*' }).first())!.n) > 0, 'with indexes deferred')
  } else {
    t.comment(`the backfill got to block ${stored} before the kill: too near the head for a bulk load to be open`)
  }
})

t.test('started again, it resumes and indexes the whole chain exactly once', async (t) => {
  const orphan = await gethPid()
  // Geth dies of SIGPIPE at its first log line once the gateway reading its stdout is gone: maybe before this restart.
  const orphanRunning = isProcessAlive(orphan)
  const before = await countBlocks()
  second = await startGatewayProcess(root, env)
  t.notOk(isProcessAlive(orphan), 'no Geth of the first gateway is left running')
  if (orphanRunning) t.ok(second.lines.some((l) => l.msg === 'killing a geth left running by an earlier gateway'), 'the new gateway stopped it (geth.pid)')
  await waitFor('the index to reach the head', async () => {
    const { body } = await second.health()
    return body.indexer.head === built.head && body.indexer.role === 'writer' ? true : undefined
  })
  t.ok((await countBlocks()) > before, 'it went on from where the first one stopped')

  const verify = await runOps(['verify-index'], { DATA_DIR: chain.dataDir, DATABASE_URL: '', GETH_RPC_URL: '' })
  t.equal(verify.exitCode, 0, verify.stdout + verify.stderr)
  t.match(verify.stdout, `node: the gateway's (pid ${second.pid}, endpoints.json)`)
  t.match(verify.stdout, `verified blocks 0..${built.head} (${built.head + 1} blocks): no mismatches`)

  const { rows: [counts] } = await db.raw(`
    select (select count(*) from blocks) as blocks,
           (select count(distinct number) from blocks) as distinct_blocks,
           (select min(number) from blocks) as lowest,
           (select max(number) from blocks) as highest,
           (select count(*) from transactions) as transactions,
           (select count(distinct hash) from transactions) as distinct_transactions,
           (select sum(transaction_count) from blocks) as counted_transactions,
           (select count(*) from internal_transactions) as internal`)
  t.same({ blocks: Number(counts.blocks), distinct: Number(counts.distinct_blocks), lowest: Number(counts.lowest), highest: Number(counts.highest) },
    { blocks: built.head + 1, distinct: built.head + 1, lowest: 0, highest: built.head }, 'every block once, 0 to the head')
  t.equal(Number(counts.transactions), built.transactions, 'every transaction sent')
  t.equal(Number(counts.distinct_transactions), built.transactions, 'none twice')
  t.equal(Number(counts.counted_transactions), built.transactions, 'as the blocks count them')
  t.equal(Number(counts.internal), built.transactions, 'one call frame per transaction (nothing here calls further)')

  t.equal(await db('indexer_bulk_load').first(), undefined, 'the bulk load was finished')
  t.same(await db('indexer_deferred_indexes').select(), [], 'every deferred index built again')
  const { rows: indexes } = await db.raw("select indexname from pg_indexes where indexname in ('transactions_from', 'logs_address', 'internal_transactions_transaction', 'token_transfers_to')")
  t.equal(indexes.length, 4, 'the deferred indexes are there')
  const { rows: foreignKeys } = await db.raw("select conname from pg_constraint where contype = 'f' and conrelid in ('transactions'::regclass, 'logs'::regclass, 'coin_balances'::regclass)")
  t.equal(foreignKeys.length, 3, 'and the foreign keys to blocks')
  const rpc = createRpcClient({ url: (await readEndpoints(chain.dataDir))!.geth_rpc_url, timeoutMs: 10_000 })
  t.teardown(async () => await rpc.close())
  const addresses = await db('addresses').select('hash', 'coin_balance', 'transaction_count')
  t.ok(addresses.length > WALLETS, 'the running sums were built')
  for (const row of addresses) {
    const address = '0x' + row.hash.toString('hex')
    t.equal(row.coin_balance, BigInt(await rpc.call<string>('eth_getBalance', [address, 'latest'])).toString(), `${address}: the node's balance`)
    const { rows: [own] } = await db.raw(`select (select count(*) from transactions where "from" = ?) + (select count(*) from transactions where "to" = ? and "from" <> ?)
      + (select count(*) from transactions where created_contract = ?) as n`, [row.hash, row.hash, row.hash, row.hash])
    t.equal(Number(row.transaction_count), Number(own.n), `${address}: its transactions counted once`)
  }
})

t.test('a Geth orphaned by a gateway killed with -9 is stopped on the next start', async (t) => {
  // Geth would die of SIGPIPE at its next log line; frozen, it stays the orphan geth.pid is there for.
  const orphan = await gethPid()
  process.kill(orphan, 'SIGSTOP')
  second.kill('SIGKILL')
  await second.exited
  t.ok(isProcessAlive(orphan), 'Geth outlives its gateway')
  const third = await startGatewayProcess(root, env)
  t.ok(third.lines.some((l) => l.msg === 'killing a geth left running by an earlier gateway' && l.geth_pid === orphan), 'the new gateway finds it through geth.pid')
  t.notOk(isProcessAlive(orphan), 'and stops it')
  t.not(await gethPid(), orphan, 'then runs its own')
  t.equal((await third.health()).body.indexer.head, built.head)

  third.kill('SIGTERM')
  t.same(await third.exited, { code: 0, signal: null }, 'a clean stop')
  t.equal(await readFile(join(chain.dataDir, 'endpoints.json'), 'utf8').catch(() => 'gone'), 'gone', 'removes endpoints.json')
  t.equal(await readFile(join(chain.dataDir, 'geth.pid'), 'utf8').catch(() => 'gone'), 'gone', 'and stops Geth')
})
