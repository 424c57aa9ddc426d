// DATABASE_POOL_MAX reaches both of the gateway's pools: however many reads
// wait, no more sessions than that serve them.
import t from 'tap'
import { build } from '../../helper.ts'
import { createPreparedStatements } from '../../../core/queries/sql/prepared.ts'

const { app } = await build(t, { DATABASE_POOL_MAX: '2' })
const db = app.db.knex
const WAITING = 6

t.test('prepared reads share at most DATABASE_POOL_MAX sessions', async (t) => {
  const rows = await Promise.all(Array.from({ length: WAITING }, async () =>
    (await createPreparedStatements({ knex: db, pool: app.db.prepared }).rows<{ pid: number }>('select pg_backend_pid() as pid, pg_sleep(0.2)', []))[0]!))
  const sessions = new Set(rows.map((r) => r.pid)).size
  t.ok(sessions <= 2, `${sessions} sessions served ${WAITING} waiting reads`)
})

t.test('knex reads share at most DATABASE_POOL_MAX sessions', async (t) => {
  const results = await Promise.all(Array.from({ length: WAITING }, async () =>
    (await db.raw('select pg_backend_pid() as pid, pg_sleep(0.2)')).rows[0] as { pid: number }))
  // The indexer may hold one of them meanwhile: at most two, never six.
  const sessions = new Set(results.map((r) => r.pid)).size
  t.ok(sessions <= 2, `${sessions} sessions served ${WAITING} waiting reads`)
})
