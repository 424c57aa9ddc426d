// The metadata reader's bookkeeping, on a real database: switched off it reads
// nothing; a kept failure waits its turn; a node that does not answer leaves
// nothing kept (the next ask tries again).
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { createRpcClient } from '../../../core/rpc/client.ts'
import { createNftMetadataReader } from '../../../core/nft-metadata/index.ts'
import { createTestDatabase } from '../../support/database.ts'

const log = pino({ level: 'warn' })
const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log })
t.teardown(async () => await database.close())
const db = database.knex
// Nothing listens on the discard port: every call fails at once, as with the node down.
const client = createRpcClient({ url: 'http://127.0.0.1:9', timeoutMs: 1000 })
t.teardown(async () => await client.close())
// The calls made, counted on their way to the client.
let calls = 0
const rpc = Object.assign(Object.create(client) as typeof client, {
  call: async (...args: Parameters<typeof client.call>) => { calls++; return await client.call(...args) }
})
const token = Buffer.alloc(20, 7)
const MINUTE = 60_000
let clock = Date.parse('2026-11-22T00:00:00Z')
const reader = (enabled: boolean) => createNftMetadataReader({
  db, rpc, log, options: { enabled, ipfsGateway: 'https://ipfs.io/ipfs/', allowPrivateHosts: false }, now: () => clock
})
const kept = async (id: string) => await db('token_instance_metadata').where({ token_address: token, token_id: id }).first('metadata', 'error', 'fetched_at')

t.test('switched off: what was kept, and nothing read', async (t) => {
  await db('token_instance_metadata').insert({ token_address: token, token_id: '1', metadata: { name: 'Kept' }, fetched_at: new Date(clock) })
  const off = reader(false)
  t.same(await off.read(token, '1', 'ERC-721'), { name: 'Kept' })
  t.equal(await off.read(token, '2', 'ERC-721'), null)
  t.equal(await kept('2'), undefined, 'nothing read, nothing kept')
  t.equal(calls, 0, 'the node was not asked')
  await off.close()
})

t.test('a node that does not answer leaves nothing kept; a kept failure is retried only after ten minutes', async (t) => {
  const on = reader(true)
  t.teardown(async () => await on.close())
  t.equal(await on.read(token, '3', 'ERC-721'), null)
  t.equal(await kept('3'), undefined, 'the node was down: nothing is known yet')
  await db('token_instance_metadata').insert({ token_address: token, token_id: '4', error: 'HTTP 500', fetched_at: new Date(clock) })
  calls = 0
  clock += 9 * MINUTE
  t.equal(await on.read(token, '4', 'ERC-721'), null)
  t.equal((await kept('4')).error, 'HTTP 500', 'not yet due: the failure stands')
  t.equal(calls, 0, 'and the token was not asked again')
  clock += 2 * MINUTE
  // Due now: the read is tried (and fails on the node, so the old failure stays as it was).
  t.equal(await on.read(token, '4', 'ERC-721'), null)
  t.equal(calls, 1, 'due: the token is asked again')
  t.same(await kept('1'), { metadata: { name: 'Kept' }, error: null, fetched_at: (await kept('1')).fetched_at }, 'a document, once read, is kept')
})
