// The writer's advisory lock lost while the writer lives on (its backend
// terminated, as a PostgreSQL restart or a network blip would): the writer
// stops writing at once, waits as a reader while another holds the lock,
// and takes over again once it is free. A trigger on blocks records, for
// every block written, which instance wrote it and which held the lock then.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { Wallet } from 'ethers'
import { openDatabase, type Database } from '../../../core/db/index.ts'
import { createIndexer, type Indexer } from '../../../core/indexer/index.ts'
import { INDEXER_FENCE_KEY, INDEXER_LOCK_KEY } from '../../../core/indexer/lock.ts'
import { fetchHeadNumber } from '../../../core/indexer/fetch.ts'
import { createTestDatabase } from '../../support/database.ts'
import { sendRound, sign, startFundedNode } from '../../support/blocks.ts'
import { runOps, waitFor } from '../../support/gateway-process.ts'

const { node, wallets, dataDir, log } = await startFundedNode(t, 1)
const databaseUrl = await createTestDatabase(t)
const named = (name: string): string => `${databaseUrl}${databaseUrl.includes('?') ? '&' : '?'}application_name=${name}`

const LOCK_CLASSID = Math.floor(INDEXER_LOCK_KEY / 2 ** 32)
const LOCK_OBJID = INDEXER_LOCK_KEY % 2 ** 32
// pg_locks is the whole server's: advisory keys are per database.
const LOCK_ROW = `l.database = (select oid from pg_database where datname = current_database()) and l.locktype = 'advisory' and l.granted and l.objsubid = 1 and l.classid = ${LOCK_CLASSID} and l.objid = ${LOCK_OBJID}`
/** Longer than the indexer's retry and lock poll (2 s): time enough for a writer that should not write to do so. */
const HELD_MS = 4000
/** A head unchanged this long after the last round: nothing more is being sealed. */
const HEAD_SETTLE_MS = 1000

const admin = new pg.Client({ connectionString: named('test-admin') })
await admin.connect()
t.teardown(async () => await admin.end())

// Blocks keep coming: a transfer at a time, each sealed in its own block.
const sealing = new AbortController()
const sender = (async () => {
  let nonce = 0
  while (!sealing.signal.aborted) await sendRound(node.rpc, [await sign(wallets[0]!, { to: Wallet.createRandom().address, value: 1n, gasLimit: 21_000n, nonce: nonce++ })])
})()
t.teardown(async () => { sealing.abort(); await sender })

const instances: Array<{ db: Database, indexer: Indexer }> = []
async function startInstance (name: string): Promise<Indexer> {
  const url = named(name)
  const db = await openDatabase({ url, dataDir, log })
  const indexer = createIndexer({ db: db.knex, databaseUrl: url, rpc: node.rpc, log: log.child({ instance: name }), bulkLoadMinBlocks: 0, headPollMs: 20 })
  instances.push({ db, indexer })
  indexer.start()
  return indexer
}
t.teardown(async () => {
  for (const { db, indexer } of instances) {
    await indexer.stop()
    await db.close()
  }
})

const first = await startInstance('indexer-a')
await admin.query(`
  create table lock_audit (number bigint, writer text, holder text);
  create function lock_audit() returns trigger language plpgsql as $$
  begin
    insert into lock_audit select new.number, current_setting('application_name'),
      (select string_agg(a.application_name, ',') from pg_locks l join pg_stat_activity a on a.pid = l.pid where ${LOCK_ROW});
    return new;
  end $$;
  create trigger lock_audit after insert on blocks for each row execute function lock_audit();`)

const storedHead = async (): Promise<number> => Number((await admin.query('select coalesce(max(number), -1) as n from blocks')).rows[0].n)
const lockHolderPid = async (): Promise<number | undefined> =>
  (await admin.query(`select l.pid from pg_locks l where ${LOCK_ROW}`)).rows[0]?.pid
/** Blocks written by an instance that did not hold the lock as it wrote them. */
const unlockedWrites = async (): Promise<string[]> =>
  (await admin.query('select number, writer, holder from lock_audit where holder is distinct from writer order by number')).rows
    .map((r) => `block ${r.number} written by ${r.writer} while ${r.holder ?? 'nobody'} held the lock`)
const whenWriting = async (indexer: Indexer, beyond: number): Promise<void> => {
  await waitFor(`a writer past block ${beyond}`, async () => {
    const { role, indexedHead } = indexer.status()
    return role === 'writer' && (indexedHead ?? -1) > beyond ? true : undefined
  })
}

t.test('a writer whose lock backend is terminated writes nothing more, waits as a reader and takes over again', async (t) => {
  await whenWriting(first, 5)
  const pid = await lockHolderPid()
  t.ok(pid, 'the writer holds the lock on a backend of its own')
  // A rival that takes the lock the moment it is free, as a second instance would, and waits for the fence as one does.
  const rival = new pg.Client({ connectionString: named('rival') })
  await rival.connect()
  await admin.query('select pg_terminate_backend($1)', [pid])
  await rival.query('select pg_advisory_lock($1)', [INDEXER_LOCK_KEY])
  await rival.query('select pg_advisory_lock($1)', [INDEXER_FENCE_KEY])
  await rival.query('select pg_advisory_unlock($1)', [INDEXER_FENCE_KEY])
  const atTakeover = await storedHead()
  await sleep(HELD_MS)
  const nodeHead = await fetchHeadNumber(node.rpc)
  t.ok(nodeHead > atTakeover + 5, `the node went on sealing (block ${nodeHead})`)
  t.equal(await storedHead(), atTakeover, 'nothing was written while another held the lock')
  t.equal(first.status().role, 'reader', 'the instance that lost the lock waits as a reader, not failed')
  await rival.end()
  await whenWriting(first, nodeHead)
  t.pass('once the lock was free it took over again and indexed on')
  t.same(await unlockedWrites(), [], 'every block was written under the lock')
})

t.test('with a second instance, the lost lock goes to one writer at a time, and back when that one stops', async (t) => {
  const second = await startInstance('indexer-b')
  await waitFor('the second instance to read', async () => second.status().role === 'reader' ? true : undefined)
  await admin.query('select pg_terminate_backend($1)', [await lockHolderPid()])
  const writer = await waitFor('a writer again', async () => {
    const roles = [first.status().role, second.status().role]
    if (roles.includes('failed')) throw new Error(`an instance failed: ${roles.join(', ')}`)
    return roles.includes('writer') && await lockHolderPid() !== undefined ? (roles[0] === 'writer' ? first : second) : undefined
  })
  const other = writer === first ? second : first
  t.equal(other.status().role, 'reader', 'one writer, one reader')
  const before = await storedHead()
  await whenWriting(writer, before + 3)
  await writer.stop()
  t.equal(writer.status().role, 'stopped')
  await whenWriting(other, await fetchHeadNumber(node.rpc))
  t.pass('the other instance took over when the writer stopped')
  t.same(await unlockedWrites(), [], 'every block was written under the lock')
})

t.test('the index ends exactly the node\'s chain (verify-index)', async (t) => {
  sealing.abort()
  await sender
  // A sealer restarted by sendRound (a stalled period-0 sealer) may still seal a block after the last round: the head once it settles.
  let head = await fetchHeadNumber(node.rpc)
  for (let settled = false; !settled;) {
    await sleep(HEAD_SETTLE_MS)
    const now = await fetchHeadNumber(node.rpc)
    settled = now === head
    head = now
  }
  const writer = instances.map((i) => i.indexer).find((i) => i.status().role === 'writer')!
  await waitFor('the index to reach the head', async () => (writer.status().indexedHead ?? -1) >= head ? true : undefined)
  const verify = await runOps(['verify-index'], { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, GETH_RPC_URL: node.rpc.url })
  t.equal(verify.exitCode, 0, verify.stdout + verify.stderr)
  t.match(verify.stdout, `verified blocks 0..${head} (${head + 1} blocks): no mismatches`)
  const { rows: [counts] } = await admin.query('select count(*) as blocks, count(distinct number) as distinct_blocks from blocks')
  t.same({ blocks: Number(counts.blocks), distinct: Number(counts.distinct_blocks) }, { blocks: head + 1, distinct: head + 1 }, 'every block once')
  t.same(await unlockedWrites(), [], 'every block was written under the lock')
})
