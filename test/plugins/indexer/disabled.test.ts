// An API-only gateway (INDEXER_ENABLED=false) beside a writer on one database:
// it never takes the indexer lock (pg_locks, sampled all along), serves what
// the writer indexed, its subscribers hear new blocks through the commit feed,
// and when the writer stops it still does not take over.
import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import pino from 'pino'
import { JsonRpcProvider, Wallet } from 'ethers'
import { Socket } from 'phoenix'
import WebSocket from 'ws'
import { CHAIN_ID, loadConfig } from '../../../core/config.ts'
import { openDatabase } from '../../../core/db/index.ts'
import { createIndexer } from '../../../core/indexer/index.ts'
import { INDEXER_LOCK_KEY } from '../../../core/indexer/lock.ts'
import { createGethNode } from '../../../geth/node.ts'
import { createTestChainFiles, waitForReceipt } from '../../support/chain.ts'
import { createTestDatabase } from '../../support/database.ts'
import { runOps, startGatewayProcess, waitFor } from '../../support/gateway-process.ts'
import { subscribeGraphql } from '../../support/graphql.ts'

/** Several of the indexer's lock retries (2 s each): time enough for an instance that should not take the lock to take it. */
const WRITERLESS_MS = 7000
const SAMPLE_MS = 100
// pg_locks is the whole server's: advisory keys are per database.
const LOCK_ROW = `l.database = (select oid from pg_database where datname = current_database()) and l.locktype = 'advisory' and l.granted and l.objsubid = 1
  and l.classid = ${Math.floor(INDEXER_LOCK_KEY / 2 ** 32)} and l.objid = ${INDEXER_LOCK_KEY % 2 ** 32}`

const chain = await createTestChainFiles(t)
const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'warn' })
const node = await createGethNode({ config: loadConfig({ ...process.env, ...chain.env }), log })
await node.start()
t.teardown(async () => await node.stop())
const databaseUrl = await createTestDatabase(t)
// Each instance's connections carry its name, for telling them apart in pg_stat_activity.
const named = (name: string): string => `${databaseUrl}${databaseUrl.includes('?') ? '&' : '?'}application_name=${name}`
const provider = new JsonRpcProvider(node.rpc.url, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())
const sender = new Wallet(chain.account.privateKey, provider)

const admin = new pg.Client({ connectionString: named('test-admin') })
await admin.connect()
t.teardown(async () => await admin.end())
const lockHolders = async (): Promise<string[]> =>
  (await admin.query(`select a.application_name as name from pg_locks l join pg_stat_activity a on a.pid = l.pid where ${LOCK_ROW}`)).rows.map((r) => r.name as string)

// The writer: the indexer as the gateway runs it, in this process.
const writerDb = await openDatabase({ url: named('writer'), dataDir: chain.dataDir, log })
t.teardown(async () => await writerDb.close())
const writer = createIndexer({ db: writerDb.knex, databaseUrl: named('writer'), rpc: node.rpc, wsUrl: node.wsUrl, log: log.child({ instance: 'writer' }) })
writer.start()
t.teardown(async () => await writer.stop())
await waitFor('the writer to take the lock', async () => writer.status().role === 'writer' ? true : undefined)

// Every holder of the lock from now to the end of the file.
const everHeld = new Set<string>()
const sampling = new AbortController()
const sampler = (async () => {
  while (!sampling.signal.aborted) {
    for (const name of await lockHolders()) everHeld.add(name)
    await sleep(SAMPLE_MS)
  }
})()
t.teardown(async () => { sampling.abort(); await sampler })

const dataDir = await mkdtemp(join(tmpdir(), 'tg-api-only-'))
t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
const apiOnly = await startGatewayProcess(t, { ...chain.env, DATA_DIR: dataDir, DATABASE_URL: named('api-only'), GETH_RPC_URL: node.rpc.url, INDEXER_ENABLED: 'false' })

async function sealTransfer (): Promise<{ hash: string, blockNumber: number }> {
  const { hash } = await sender.sendTransaction({ to: Wallet.createRandom().address, value: 1n })
  return { hash, blockNumber: (await waitForReceipt(provider, hash)).blockNumber }
}

t.test('/health and ops status show a reader with indexing disabled', async (t) => {
  const { body } = await apiOnly.health()
  t.match(body.indexer, { role: 'reader', enabled: false }, '/health')
  const status = await runOps(['status'], { DATA_DIR: dataDir })
  t.match(status.stdout, /indexer: +reader \(indexer disabled\), head \d+/, 'ops status')
  // On another node's GETH_RPC_URL it has no signer key of its own.
  t.match(status.stdout, /signer: +none in DATA_DIR\/keystore; sealing: yes/, 'ops status: no signer key')
  const json = JSON.parse((await runOps(['status', '--json'], { DATA_DIR: dataDir })).stdout)
  t.match(json.indexer, { role: 'reader', enabled: false }, 'ops status --json')
})

t.test('it serves the blocks the writer indexed', async (t) => {
  const { hash, blockNumber } = await sealTransfer()
  await waitFor(`the writer to index block ${blockNumber}`, async () => (writer.status().indexedHead ?? -1) >= blockNumber ? true : undefined)
  const response = await fetch(`${apiOnly.url}/api/v2/transactions/${hash}`)
  t.equal(response.status, 200)
  t.match(await response.json(), { hash, block_number: blockNumber })
})

t.test('its GraphQL and Phoenix subscribers hear new blocks through the commit feed', async (t) => {
  const subscription = await subscribeGraphql(`${apiOnly.url.replace('http', 'ws')}/api/v2/graphql`, 'subscription { newTransaction { hash blockNumber } }')
  t.teardown(() => subscription.close())
  const socket = new Socket(`${apiOnly.url.replace('http', 'ws')}/socket/v2`, { transport: WebSocket as never, reconnectAfterMs: () => 100 })
  socket.connect()
  t.teardown(() => socket.disconnect())
  const channel = socket.channel('blocks:new_block', {})
  await new Promise((resolve, reject) => { channel.join().receive('ok', resolve).receive('error', reject) })
  const heights: number[] = []
  channel.on('new_block', (payload: { block: { height: number } }) => { heights.push(payload.block.height) })
  const sealed = await sealTransfer()
  const message = await subscription.next(30_000)
  t.same(message.payload.data.newTransaction, sealed, 'GraphQL')
  await waitFor(`the Phoenix client to hear block ${sealed.blockNumber}`, async () => heights.includes(sealed.blockNumber) ? true : undefined)
  t.pass('Phoenix socket')
  t.match((await apiOnly.health()).body.indexer, { role: 'reader', head: sealed.blockNumber }, 'and its head follows the commits it hears')
})

t.test('when the writer stops, it still does not take over', async (t) => {
  await writer.stop()
  t.same(await lockHolders(), [], 'the writer released the lock')
  const { blockNumber } = await sealTransfer()
  await sleep(WRITERLESS_MS)
  t.same(await lockHolders(), [], 'nobody took it')
  t.match((await apiOnly.health()).body.indexer, { role: 'reader', enabled: false })
  const stored = Number((await admin.query('select coalesce(max(number), -1) as n from blocks')).rows[0].n)
  t.ok(stored < blockNumber, `block ${blockNumber} was not indexed (stored head ${stored})`)
})

t.test('the disabled instance never held the indexer lock', async (t) => {
  sampling.abort()
  await sampler
  t.ok(everHeld.has('writer'), 'the sampling saw the writer hold it')
  t.notOk(everHeld.has('api-only'), `holders seen: ${[...everHeld].join(', ')}`)
  const { rows } = await admin.query("select count(*)::int as n from pg_stat_activity where application_name = 'api-only'")
  t.ok(rows[0].n > 0, 'while its own connections were on the database')
})
