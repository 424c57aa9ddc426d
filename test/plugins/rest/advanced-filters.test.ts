// The advanced filter page's method list: the common methods, and one looked
// up by selector or name, in Blockscout's shape. No chain is needed: the REST
// routes are mounted over an empty database, as bench:rest mounts them.
import t from 'tap'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import pino from 'pino'
import { id } from 'ethers'
import { openDatabase } from '../../../core/db/index.ts'
import { restV2 } from '../../../plugins/rest/index.ts'
import { KNOWN_METHODS } from '../../../plugins/rest/advanced-filters.ts'
import { createTestDatabase } from '../../support/database.ts'
import { checkSpec } from '../../support/openapi.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '.', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const app = Fastify()
app.decorate('db', database)
await app.register(fp(async () => {}, { name: 'db' }))
await app.register(restV2, { prefix: '/api/v2' })
t.teardown(async () => await app.close())
const get = async (url: string) => await app.inject({ method: 'GET', url })

t.test('GET /api/v2/advanced-filters/methods lists common methods with their selectors', async (t) => {
  const response = await get('/api/v2/advanced-filters/methods')
  t.equal(response.statusCode, 200)
  const body = response.json()
  checkSpec(t, '/v2/advanced-filters/methods', body)
  t.ok(body.length >= 10)
  t.same(body.find((m: { name: string }) => m.name === 'transfer'), { method_id: '0xa9059cbb', name: 'transfer' })
  t.ok(body.every((m: { method_id: string, name: string }) => KNOWN_METHODS.some((k) => k.method_id === m.method_id) && m.method_id.length === 10))
})

t.test('?q= finds one method by selector or name (any case), a bare selector, or none', async (t) => {
  const approve = { method_id: id('approve(address,uint256)').slice(0, 10), name: 'approve' }
  t.same((await get('/api/v2/advanced-filters/methods?q=approve')).json(), [approve])
  t.same((await get('/api/v2/advanced-filters/methods?q=APPROVE')).json(), [approve])
  t.same((await get(`/api/v2/advanced-filters/methods?q=${approve.method_id}`)).json(), [approve])
  t.same((await get('/api/v2/advanced-filters/methods?q=0xDEADBEEF')).json(), [{ method_id: '0xdeadbeef', name: '' }])
  t.same((await get('/api/v2/advanced-filters/methods?q=frobnicate')).json(), [])
  checkSpec(t, '/v2/advanced-filters/methods', (await get('/api/v2/advanced-filters/methods?q=0xdeadbeef')).json())
  t.equal((await get('/api/v2/advanced-filters/methods?verbose=1')).statusCode, 422)
  t.equal((await get(`/api/v2/advanced-filters/methods?q=${'x'.repeat(201)}`)).statusCode, 422)
})
