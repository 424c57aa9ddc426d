// Named prepared statements over knex's pool: rows come back, each text has
// its own statement, PostgreSQL keeps one plan for it, and inside a knex
// transaction the statement runs on the transaction's connection.
import t from 'tap'
import knex from 'knex'
import { createTestDatabase } from '../../support/database.ts'
import { preparedRows } from '../../../core/queries/prepared.ts'

const url = await createTestDatabase(t)
// One connection: the statements of every call below meet on it.
const db = knex({ client: 'pg', connection: url, pool: { min: 1, max: 1 } })
t.teardown(async () => await db.destroy())
await db.raw('create table numbers (n integer primary key)')
await db.raw('insert into numbers select generate_series(1, 1000)')
await db.raw('analyze numbers')

t.test('answers rows with bound values, one named statement per text', async (t) => {
  t.same(await preparedRows(db, 'select n from numbers where n = $1', [7]), [{ n: 7 }])
  t.same(await preparedRows(db, 'select n from numbers where n = $1', [8]), [{ n: 8 }], 'the same text again, other values')
  t.same(await preparedRows(db, 'select n * 2 as n from numbers where n = $1', [8]), [{ n: 16 }], 'another text is another statement')
  const { rows } = await db.raw("select name, statement from pg_prepared_statements where name like 'gw\\_%' order by statement")
  t.equal(rows.length, 2)
  t.same(rows.map((r: { statement: string }) => r.statement), ['select n * 2 as n from numbers where n = $1', 'select n from numbers where n = $1'])
})

t.test('is planned once and then runs on its generic plan', async (t) => {
  const text = 'select n from numbers where n < $1 order by n desc limit 3'
  for (let i = 0; i < 10; i++) t.same(await preparedRows(db, text, [500 - i]), [{ n: 499 - i }, { n: 498 - i }, { n: 497 - i }])
  const { rows } = await db.raw('select generic_plans::int as generic from pg_prepared_statements where statement = ?', [text])
  t.ok(rows[0].generic > 0, 'PostgreSQL switched to the generic plan')
})

t.test('inside a transaction it sees the transaction\'s own writes', async (t) => {
  await db.transaction(async (trx) => {
    await trx.raw('insert into numbers values (5000)')
    t.same(await preparedRows(trx, 'select n from numbers where n = $1', [5000]), [{ n: 5000 }])
    await trx.rollback()
  }).catch(() => {})
  t.same(await preparedRows(db, 'select n from numbers where n = $1', [5000]), [], 'rolled back')
})

t.test('an error reaches the caller and the connection goes back to the pool', async (t) => {
  await t.rejects(preparedRows(db, 'select n from numbers where n = $1', ['not a number']), /invalid input syntax/)
  t.same(await preparedRows(db, 'select n from numbers where n = $1', [9]), [{ n: 9 }], 'the only connection is free again')
})
