// bench:graphql's server (the /api/v2 routes and the GraphQL plugin, no node,
// no indexer) starts on a database and answers: the plugins' dependencies are
// met by the benchmarks' stand-ins (scripts/bench/stand-ins.ts), not by
// fallbacks in the plugins.
import t from 'tap'
import pino from 'pino'
import { loadConfig } from '../../../core/config.ts'
import { openDatabase } from '../../../core/db/index.ts'
import { startApiServer } from '../../../scripts/bench/graphql/server.ts'
import { createTestDatabase } from '../../support/database.ts'

t.test('the GraphQL plugin and the REST routes serve an empty database on the stand-ins', async (t) => {
  const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
  t.teardown(async () => await database.close())
  const server = await startApiServer(database, loadConfig({}).graphql)
  t.teardown(async () => await server.close())
  const answer = await fetch(`${server.url}/api/v2/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ block(number: 0) { hash } }' })
  })
  t.equal(answer.status, 200)
  t.match(await answer.json(), { data: { block: null } })
  const blocks = await fetch(`${server.url}/api/v2/blocks`)
  t.equal(blocks.status, 200)
})
