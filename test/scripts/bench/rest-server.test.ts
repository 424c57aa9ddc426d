// bench:rest's server (the /api/v2 routes alone, no node, no indexer) starts
// on a database and answers: a route that needs a decoration only the full
// app has would break the benchmark and nothing else.
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { startRestServer } from '../../../scripts/bench/rest/server.ts'
import { createTestDatabase } from '../../support/database.ts'
import { createApiKey } from '../../../core/api-keys/store.ts'
import { generateApiKey } from '../../../core/api-keys/key-format.ts'

t.test('the REST routes alone serve an empty database', async (t) => {
  const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
  t.teardown(async () => await database.close())
  const server = await startRestServer(database)
  t.teardown(async () => await server.close())
  const blocks = await fetch(`${server.url}/api/v2/blocks`)
  t.equal(blocks.status, 200)
  t.same(await blocks.json(), { items: [], next_page_params: null })
  const instance = await fetch(`${server.url}/api/v2/tokens/0x${'11'.repeat(20)}/instances/1`)
  t.equal(instance.status, 404, 'an unknown token\'s instance: not found, without a node to ask')
})

t.test('with the access layer, the REST routes check keys and count them as the app does', async (t) => {
  const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
  t.teardown(async () => await database.close())
  const server = await startRestServer(database, { enabled: true, publicPerMin: 100, premiumPerMin: 1000, traceWeight: 10, explorerOrigins: [], explorerPerMin: 600, redisUrl: undefined })
  t.teardown(async () => await server.close())
  const { key } = await createApiKey(database.knex, { label: 'bench', tier: 'premium' })
  const keyed = await fetch(`${server.url}/api/v2/blocks`, { headers: { 'x-api-key': key } })
  t.equal(keyed.status, 200)
  t.equal(keyed.headers.get('x-ratelimit-limit'), '1000', 'the premium limit')
  t.equal(keyed.headers.get('x-ratelimit-remaining'), '999')
  t.equal((await fetch(`${server.url}/api/v2/blocks`, { headers: { 'x-api-key': generateApiKey() } })).status, 401, 'an unknown key')
})
