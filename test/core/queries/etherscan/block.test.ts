// findBlockNumberByTime on blocks sealed within one second across a decimal
// digit (8..11 share a timestamp): ties go by the block number, not by its
// text ('9' sorts after '10').
import t from 'tap'
import knex from 'knex'
import { migrationSource } from '../../../../core/db/migrations/index.ts'
import { createTestDatabase } from '../../../support/database.ts'
import { createQueries } from '../../../../core/queries/index.ts'

const db = knex({ client: 'pg', connection: await createTestDatabase(t), pool: { min: 0, max: 1 } })
t.teardown(async () => await db.destroy())
await db.migrate.latest({ migrationSource })
const queries = createQueries({ knex: db })
// Blocks 0..20: 8 to 11 sealed at second 1000, the others at 990 + n.
await db.raw(`insert into blocks select n, decode(lpad(to_hex(n), 64, '0'), 'hex'), '\\x00', to_timestamp(case when n between 8 and 11 then 1000 else 990 + n end),
  '\\x00', null, 30000000, 0, null, 600, '\\x0000000000000000', 1, n, '\\x', 0, 0 from generate_series(0, 20) n`)

t.test('ties: the newest block before, the oldest after', async (t) => {
  t.equal(await queries.etherscan.findBlockNumberByTime({ epochS: 1000, closest: 'before' }), '11')
  t.equal(await queries.etherscan.findBlockNumberByTime({ epochS: 1000, closest: 'after' }), '8')
  t.equal(await queries.etherscan.findBlockNumberByTime({ epochS: 999, closest: 'before' }), '7', 'before the tie: block 7 (997)')
  t.equal(await queries.etherscan.findBlockNumberByTime({ epochS: 1001, closest: 'after' }), '12', 'after the tie: block 12 (1002)')
  t.equal(await queries.etherscan.findBlockNumberByTime({ epochS: 989, closest: 'before' }), undefined, 'before the first block: none')
  t.equal(await queries.etherscan.findBlockNumberByTime({ epochS: 1011, closest: 'after' }), undefined, 'after the last block: none')
})
