// Named prepared statements: rows come back, each text has its own
// statement, PostgreSQL keeps one plan for it, and inside a knex transaction
// the statement runs on the transaction's connection. Through a database
// from openDatabase they run on its prepared-statement pool, whose sessions
// take the generic plan even where PostgreSQL would plan every execution,
// also behind PgBouncer.
import t from 'tap'
import knex from 'knex'
import pino from 'pino'
import { openDatabase } from '../../../../core/db/index.ts'
import { createTestDatabase } from '../../../support/database.ts'
import { createPreparedStatements, nativeText, type PreparedStatements } from '../../../../core/queries/sql/prepared.ts'
import { findPgBouncer, startPgBouncer } from '../../../support/pgbouncer.ts'

const url = await createTestDatabase(t)
// One connection: the statements of every call below meet on it.
const db = knex({ client: 'pg', connection: url, pool: { min: 1, max: 1 } })
t.teardown(async () => await db.destroy())
const plain = createPreparedStatements({ knex: db })
await db.raw('create table numbers (n integer primary key)')
await db.raw('insert into numbers select generate_series(1, 1000)')
await db.raw('analyze numbers')

t.test('answers rows with bound values, one named statement per text', async (t) => {
  t.same(await plain.rows('select n from numbers where n = $1', [7]), [{ n: 7 }])
  t.same(await plain.rows('select n from numbers where n = $1', [8]), [{ n: 8 }], 'the same text again, other values')
  t.same(await plain.rows('select n * 2 as n from numbers where n = $1', [8]), [{ n: 16 }], 'another text is another statement')
  const { rows } = await db.raw("select name, statement from pg_prepared_statements where name like 'gw\\_%' order by statement")
  t.equal(rows.length, 2)
  t.same(rows.map((r: { statement: string }) => r.statement), ['select n * 2 as n from numbers where n = $1', 'select n from numbers where n = $1'])
})

t.test('preparedRaw numbers knex\'s ? placeholders once per text and checks the bindings', async (t) => {
  t.same(nativeText('select n from numbers where n = any(?::int[]) and n > ? order by n'), { text: 'select n from numbers where n = any($1::int[]) and n > $2 order by n', count: 2 })
  t.same(await plain.raw('select n from numbers where n = any(?::int[]) and n > ? order by n', [[3, 4, 5], 3]), [{ n: 4 }, { n: 5 }])
  t.same(await plain.raw('select n from numbers where n = any(?::int[]) and n > ? order by n', [[6, 7], 0]), [{ n: 6 }, { n: 7 }], 'the same text again')
  await t.rejects(plain.raw('select n from numbers where n = ?', []), /Expected 1 bindings, saw 0/)
  await t.rejects(plain.raw('select n from numbers where n = ?', [undefined]), /Undefined binding/)
  t.throws(() => nativeText('select ?? from numbers'), /binds values only/, 'an identifier binding is refused, not sent as two values')
})

t.test('is planned once and then runs on its generic plan', async (t) => {
  const text = 'select n from numbers where n < $1 order by n desc limit 3'
  for (let i = 0; i < 10; i++) t.same(await plain.rows(text, [500 - i]), [{ n: 499 - i }, { n: 498 - i }, { n: 497 - i }])
  const { rows } = await db.raw('select generic_plans::int as generic from pg_prepared_statements where statement = ?', [text])
  t.ok(rows[0].generic > 0, 'PostgreSQL switched to the generic plan')
})

t.test('inside a transaction it sees the transaction\'s own writes', async (t) => {
  await db.transaction(async (trx) => {
    await trx.raw('insert into numbers values (5000)')
    t.same(await createPreparedStatements({ knex: trx }).rows('select n from numbers where n = $1', [5000]), [{ n: 5000 }])
    await trx.rollback()
  }).catch(() => {})
  t.same(await plain.rows('select n from numbers where n = $1', [5000]), [], 'rolled back')
})

t.test('an error reaches the caller and the connection goes back to the pool', async (t) => {
  await t.rejects(plain.rows('select n from numbers where n = $1', ['not a number']), /invalid input syntax/)
  t.same(await plain.rows('select n from numbers where n = $1', [9]), [{ n: 9 }], 'the only connection is free again')
})

t.test('through openDatabase: the generic plan every time, where PostgreSQL alone re-plans each execution', async (t) => {
  // One connection per pool: the statistics read below are the session's that ran the statement.
  const database = await openDatabase({ url, dataDir: '.', log: pino({ level: 'silent' }), poolMax: 1 })
  t.teardown(database.close)
  const pooled = createPreparedStatements({ knex: database.knex, pool: database.prepared })
  // A loader's shape: keys as an array. Unbound, PostgreSQL guesses ten keys; bound, it sees one,
  // so left to choose it keeps planning anew.
  const text = 'select n from unnest(?::int[]) k(key) join numbers on n = key order by n'
  const plans = async (db: typeof database.knex, statements: PreparedStatements, run: (v: number) => Promise<unknown>) => {
    for (let i = 0; i < 20; i++) t.same(await run(i + 1), [{ n: i + 1 }])
    const native = db.raw(text, [[1]]).toSQL().toNative().sql
    const [row] = await statements.rows<{ generic: number, custom: number }>(
      'select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where statement = $1', [native])
    return row
  }
  t.same(await plans(database.knex, pooled, async (v) => await pooled.raw(text, [[v]])), { generic: 20, custom: 0 }, 'the pool: generic plans only')
  t.same(await plans(db, plain, async (v) => await plain.raw(text, [[v]])), { generic: 0, custom: 20 },
    'a plain knex connection (PostgreSQL choosing): a custom plan per execution; the statement this pool exists for')
  t.same(await pooled.rows('select n from numbers where n = $1', [3]), [{ n: 3 }])
  await database.knex.transaction(async (trx) => {
    await trx.raw('insert into numbers values (6000)')
    t.same(await createPreparedStatements({ knex: trx }).rows('select n from numbers where n = $1', [6000]), [{ n: 6000 }], 'a transaction still runs its statements on its own connection')
    await trx.rollback()
  }).catch(() => {})
})

t.test('through openDatabase: an idle connection the server ends is dropped, and the next statement gets a new one', async (t) => {
  const database = await openDatabase({ url, dataDir: '.', log: pino({ level: 'silent' }), poolMax: 1 })
  t.teardown(database.close)
  const pooled = createPreparedStatements({ knex: database.knex, pool: database.prepared })
  const pid = (await pooled.rows<{ pid: number }>('select pg_backend_pid() as pid', []))[0]!.pid
  // From another session, as a server restart or an operator would; unheard, the pool's error would end this process.
  await db.raw('select pg_terminate_backend(?)', [pid])
  await new Promise((resolve) => setTimeout(resolve, 200))
  const [after] = await pooled.rows<{ pid: number }>('select pg_backend_pid() as pid', [])
  t.not(after!.pid, pid, 'a new connection')
})

const pgbouncer = await findPgBouncer()
const withoutPgBouncer = pgbouncer === undefined ? 'pgbouncer is not installed on this machine (Debian package pgbouncer)' : false
t.test('through openDatabase behind PgBouncer, which refuses a connection with startup options: statements run, on generic plans', { skip: withoutPgBouncer }, async (t) => {
  const database = await openDatabase({ url: await startPgBouncer(t, pgbouncer!, url), dataDir: '.', log: pino({ level: 'silent' }), poolMax: 1 })
  t.teardown(database.close)
  const pooled = createPreparedStatements({ knex: database.knex, pool: database.prepared })
  t.same(await pooled.rows('select n from numbers where n = $1', [11]), [{ n: 11 }], 'a prepared statement runs')
  t.same(await pooled.rows('select current_setting($1) as mode', ['plan_cache_mode']), [{ mode: 'force_generic_plan' }],
    'its session was set up for generic plans')
})
