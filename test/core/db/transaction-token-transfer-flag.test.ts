// Migration 7 keeps "did this transaction move tokens" on its row: on a
// database indexed before it, the flag is filled in from the stored transfers.
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { migrationSource } from '../../../core/db/migrations/index.ts'
import { createTestDatabase } from '../../support/database.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const db = database.knex
const bytes = (n: number, length: number) => Buffer.from(n.toString(16).padStart(length * 2, '0'), 'hex')

t.test('a database indexed before the flag gets it from its token transfers', async (t) => {
  // Later migrations first, then this one: the database as it was before migration 7.
  const undone: string[] = []
  while (!undone.includes('2026_11_21_7_transaction_token_transfer_flag')) {
    const [, names] = await db.migrate.down({ migrationSource }) as [number, string[]]
    if (names.length === 0) break
    undone.push(...names)
  }
  t.same(undone.at(-1), '2026_11_21_7_transaction_token_transfer_flag')
  await db.raw('insert into blocks values (1, \'\\x01\', \'\\x00\', now(), \'\\x00\', null, 1, 1, 1, 1, \'\\x00\', 1, 1, \'\\x\', 2, 0)')
  const transaction = (index: number) => ({
    hash: bytes(100 + index, 32),
    block_number: 1,
    transaction_index: index,
    from: bytes(1, 20),
    to: bytes(2, 20),
    value: 0,
    gas: 21000,
    type: 2,
    nonce: index,
    input: Buffer.alloc(0),
    status: 1,
    gas_used: 21000,
    cumulative_gas_used: 21000,
    effective_gas_price: 1
  })
  await db('transactions').insert([transaction(0), transaction(1)])
  await db('token_transfers').insert({
    block_number: 1,
    log_index: 0,
    batch_index: 0,
    transaction_hash: bytes(101, 32),
    transaction_index: 1,
    token_address: bytes(3, 20),
    token_type: 'ERC-20',
    from: bytes(2, 20),
    to: bytes(1, 20),
    amount: 5,
    token_id: null
  })
  await db.migrate.latest({ migrationSource })
  const flags = await db('transactions').orderBy('transaction_index').pluck('has_token_transfers')
  t.same(flags, [false, true])
})
