import t from 'tap'
import { build } from '../../helper.ts'

const { app } = await build(t)

t.test('GET /health answers ok with the head and the chain ID', async (t) => {
  const response = await app.inject({ method: 'GET', url: '/health' })
  t.equal(response.statusCode, 200)
  const body = response.json()
  t.equal(body.status, 'ok')
  t.equal(body.chain_id, 793788)
  t.equal(body.geth.status, 'ok')
  t.equal(body.geth.head, Number(await app.geth.rpc.call<string>('eth_blockNumber')))
  t.equal(body.database.status, 'ok')
})

t.test('GET /health answers 503 when Geth does not answer', async (t) => {
  await app.geth.supervisor!.stop()
  const response = await app.inject({ method: 'GET', url: '/health' })
  t.equal(response.statusCode, 503)
  t.equal(response.json().status, 'unavailable')
  t.equal(response.json().geth.status, 'unavailable')
  t.equal(response.json().database.status, 'ok')
})

t.test('an unknown route answers 404 with a JSON body', async (t) => {
  const response = await app.inject({ method: 'GET', url: '/nothing-here' })
  t.equal(response.statusCode, 404)
  t.equal(response.json().code, 'GW_ERR_ROUTE_NOT_FOUND')
})

t.test('GET /api-docs serves the interactive reference and its OpenAPI document lists the routes', async (t) => {
  const page = await app.inject({ method: 'GET', url: '/api-docs/' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /text\/html/)
  const spec = (await app.inject({ method: 'GET', url: '/api-docs/json' })).json()
  t.equal(spec.openapi, '3.0.3')
  t.ok(spec.paths['/rpc']?.post, 'the JSON-RPC route is documented')
  t.ok(spec.paths['/health']?.get, 'the health route is documented')
})
