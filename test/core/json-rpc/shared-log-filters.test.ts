// Log filters' criteria shared through the database: saved by one instance,
// loaded by another; an id with no row (a block filter, polled often) costs
// one query; a database that does not answer makes load() answer "unknown"
// within a second, never an error or a hang.
import t from 'tap'
import pino from 'pino'
import knex from 'knex'
import { openDatabase } from '../../../core/db/index.ts'
import { createSharedLogFilters } from '../../../core/json-rpc/shared-log-filters.ts'
import { createTestDatabase } from '../../support/database.ts'

const log = pino({ level: 'silent' })
const url = await createTestDatabase(t)
const database = await openDatabase({ url, dataDir: '', log })
t.teardown(async () => await database.close())

t.test('a filter saved by one instance is loaded by another; a missing id is asked once', async (t) => {
  const a = createSharedLogFilters({ db: database.knex, log })
  const b = createSharedLogFilters({ db: database.knex, log })
  t.teardown(() => { a.close(); b.close() })
  await a.save('0xfeed', { fromBlock: '0x1', topics: [null, ['0xaa']] })
  t.same(await b.load('0xfeed'), { fromBlock: '0x1', topics: [null, ['0xaa']] })
  let queries = 0
  const count = (): void => { queries++ }
  database.knex.on('query', count)
  t.teardown(() => database.knex.off('query', count))
  t.equal(await b.load('0xb10c'), undefined, 'a block filter has no criteria')
  t.equal(await b.load('0xb10c'), undefined)
  t.equal(queries, 1, 'its miss is remembered')
  b.forget('0xfeed')
  await new Promise((resolve) => setTimeout(resolve, 100))
  const c = createSharedLogFilters({ db: database.knex, log })
  t.teardown(() => c.close())
  t.equal(await c.load('0xfeed'), undefined, 'forgotten everywhere')
})

t.test('load() answers unknown within a second when the database does not answer', async (t) => {
  // Nothing listens on port 9: the connection is refused, or hangs where a firewall drops it.
  const away = knex({ client: 'pg', connection: 'postgres://postgres@127.0.0.1:9/none', pool: { min: 0, max: 1 }, acquireConnectionTimeout: 30_000 })
  t.teardown(async () => await away.destroy())
  const filters = createSharedLogFilters({ db: away, log })
  t.teardown(() => filters.close())
  const started = Date.now()
  t.equal(await filters.load('0xfeed'), undefined)
  await filters.save('0xfeed', {})
  t.ok(Date.now() - started < 2500, `both given up in time (${Date.now() - started} ms)`)
})
