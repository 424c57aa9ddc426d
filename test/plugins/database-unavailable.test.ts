// The root error handler: a route outside REST and GraphQL whose database
// cannot be reached answers 503 GW_ERR_DATABASE_UNAVAILABLE, not 500.
import t from 'tap'
import pino from 'pino'
import { buildApp } from '../../plugins/index.ts'
import { buildTestConfig } from '../helper.ts'

const { config } = await buildTestConfig(t)
const app = await buildApp(config, { logger: pino({ level: 'silent' }) })
t.teardown(async () => await app.close())
app.get('/test/database-refused', async () => { throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }) })
app.get('/test/bug', async () => { throw new TypeError('a bug') })
await app.listen({ host: '127.0.0.1', port: 0 })

t.test('a database connection refused answers 503 with a coded JSON body', async (t) => {
  const response = await app.inject('/test/database-refused')
  t.equal(response.statusCode, 503)
  t.same(response.json(), { statusCode: 503, code: 'GW_ERR_DATABASE_UNAVAILABLE', error: 'Service Unavailable', message: 'The database is unavailable' })
  t.notMatch(response.body, '5432', 'no internal address')
})

t.test('any other failure is still a masked 500', async (t) => {
  const response = await app.inject('/test/bug')
  t.equal(response.statusCode, 500)
  t.equal(response.json().message, 'Internal server error')
})
