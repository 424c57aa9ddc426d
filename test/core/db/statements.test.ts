// Several statements in one round trip: each one's result, in order, inside
// the caller's transaction; values inlined only as whole numbers or quoted
// literals.
import t from 'tap'
import knex from 'knex'
import { inlineInteger, quoteLiteral, runStatements } from '../../../core/db/statements.ts'
import { createTestDatabase } from '../../support/database.ts'

const db = knex({ client: 'pg', connection: await createTestDatabase(t), pool: { min: 0, max: 2 } })
t.teardown(async () => await db.destroy())

t.test('runStatements() runs them in order in the transaction and gives one result each', async (t) => {
  await db.raw('create table statements_test (n integer)')
  const results = await db.transaction(async (trx) => await runStatements(trx, [
    'set local synchronous_commit = off',
    'insert into statements_test values (1), (2)',
    'select count(*)::int as n, current_setting(\'synchronous_commit\') as commit from statements_test'
  ]))
  t.equal(results.length, 3)
  t.same(results[2]!.rows, [{ n: 2, commit: 'off' }], 'the insert and the setting were seen by the last statement')
  t.same((await runStatementsAlone('select 7 as seven'))[0]!.rows, [{ seven: 7 }], 'one statement: one result, in an array')
  await t.rejects(db.transaction(async (trx) => await runStatements(trx, ['insert into statements_test values (3)', 'select 1/0'])), /division by zero/)
  t.same((await db.raw('select count(*)::int as n from statements_test')).rows, [{ n: 2 }], 'a failing statement rolls the transaction back, the statements before it too')
})

async function runStatementsAlone (sql: string) {
  return await db.transaction(async (trx) => await runStatements(trx, [sql]))
}

t.test('quoteLiteral() and inlineInteger() make values safe to inline', async (t) => {
  const hostile = "it's'; drop table statements_test; --\\"
  t.same((await runStatementsAlone(`select ${quoteLiteral(hostile)} as text`))[0]!.rows, [{ text: hostile }], 'read back as it was')
  t.equal(inlineInteger(42), '42')
  t.equal(inlineInteger(-1), '-1')
  for (const bad of [1.5, NaN, Infinity, 2 ** 60]) t.throws(() => inlineInteger(bad), /not a whole number/)
})
