// token_holdings follows every write to token_balances (migration 3's
// triggers): ERC-721 ids summed per collection, ERC-20 and ERC-1155 as they
// are, zero rows removed, the type known from the transfers when the token row is not.
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { createTestDatabase } from '../../support/database.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const db = database.knex
const address = (n: number) => Buffer.from(n.toString(16).padStart(40, '0'), 'hex')
const [NFT, MULTI, FUNGIBLE, UNLISTED_NFT, ALICE, BOB] = [1, 2, 3, 4, 10, 11].map(address) as [Buffer, Buffer, Buffer, Buffer, Buffer, Buffer]

await db.raw('insert into blocks values (1, \'\\x01\', \'\\x00\', now(), \'\\x00\', null, 1, 1, 1, 1, \'\\x00\', 1, 1, \'\\x\', 0, 0)')
await db('tokens').insert([
  { address: NFT, type: 'ERC-721', first_block: 1, updated_block: 1 },
  { address: MULTI, type: 'ERC-1155', first_block: 1, updated_block: 1 },
  { address: FUNGIBLE, type: 'ERC-20', first_block: 1, updated_block: 1 }
])
// A token the indexer has not stored a row for yet: only its transfers say it is an ERC-721.
await db('token_transfers').insert({
  block_number: 1,
  log_index: 0,
  transaction_hash: address(99),
  transaction_index: 0,
  token_address: UNLISTED_NFT,
  token_type: 'ERC-721',
  from: address(0),
  to: ALICE,
  amount: 1,
  token_id: 5
})

const holdings = async () => (await db('token_holdings').orderBy(['token_address', 'holder', 'token_id']))
  .map((h) => [h.token_address.toString('hex').slice(-1), h.holder.toString('hex').slice(-1), h.token_id, h.token_type, h.value])

t.test('an insert adds holdings: one per ERC-721 collection, per ERC-1155 id, per ERC-20 token', async (t) => {
  await db('token_balances').insert([
    { token_address: NFT, holder: ALICE, token_id: 1, value: 1 },
    { token_address: NFT, holder: ALICE, token_id: 2, value: 1 },
    { token_address: NFT, holder: BOB, token_id: 3, value: 1 },
    { token_address: MULTI, holder: ALICE, token_id: 7, value: 20 },
    { token_address: MULTI, holder: ALICE, token_id: 8, value: 5 },
    { token_address: FUNGIBLE, holder: BOB, token_id: -1, value: 1000 },
    { token_address: UNLISTED_NFT, holder: ALICE, token_id: 5, value: 1 },
    { token_address: UNLISTED_NFT, holder: ALICE, token_id: 6, value: 1 }
  ])
  t.same(await holdings(), [
    ['1', 'a', '-1', 'ERC-721', '2'],
    ['1', 'b', '-1', 'ERC-721', '1'],
    ['2', 'a', '7', 'ERC-1155', '20'],
    ['2', 'a', '8', 'ERC-1155', '5'],
    ['3', 'b', '-1', 'ERC-20', '1000'],
    ['4', 'a', '-1', 'ERC-721', '2']
  ])
})

t.test('updates move holdings, and a holding that reaches zero goes', async (t) => {
  // As the indexer writes a batch: one upsert of deltas, then the delete of zero rows.
  await db.raw(`insert into token_balances (token_address, holder, token_id, value) values (?, ?, 2, -1), (?, ?, 2, 1), (?, ?, 7, 5), (?, ?, -1, -1000)
    on conflict (token_address, holder, token_id) do update set value = token_balances.value + excluded.value`,
  [NFT, ALICE, NFT, BOB, MULTI, ALICE, FUNGIBLE, BOB])
  await db('token_balances').where('value', 0).delete()
  t.same(await holdings(), [
    ['1', 'a', '-1', 'ERC-721', '1'],
    ['1', 'b', '-1', 'ERC-721', '2'],
    ['2', 'a', '7', 'ERC-1155', '25'],
    ['2', 'a', '8', 'ERC-1155', '5'],
    ['4', 'a', '-1', 'ERC-721', '2']
  ])
})

t.test('deletes take holdings out', async (t) => {
  await db('token_balances').where('token_address', NFT).delete()
  await db('token_balances').where({ token_address: MULTI, token_id: 8 }).delete()
  t.same(await holdings(), [['2', 'a', '7', 'ERC-1155', '25'], ['4', 'a', '-1', 'ERC-721', '2']])
})
