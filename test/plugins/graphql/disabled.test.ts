// GRAPHQL_ENABLED=false: every GraphQL path answers 404 with a coded JSON
// message, WebSocket upgrades fail, /api-docs lists none of them and nothing
// of GraphQL is loaded; the rest of the gateway serves as usual.
import t from 'tap'
import { createRequire } from 'node:module'
import { WebSocket } from 'undici'
import { build } from '../../helper.ts'

const { app, url } = await build(t, { GRAPHQL_ENABLED: 'false' })

t.test('every GraphQL path answers 404 saying GraphQL is off', async (t) => {
  const requests: Array<{ method: 'GET' | 'POST', url: string }> = [
    { method: 'POST', url: '/api/v2/graphql' }, { method: 'GET', url: '/api/v2/graphql?query=%7Bblock(number%3A0)%7Bhash%7D%7D' },
    { method: 'POST', url: '/api/v1/graphql' }, { method: 'GET', url: '/api/v1/graphql' },
    { method: 'GET', url: '/graphiql' }, { method: 'GET', url: '/graphiql/main.js' }, { method: 'GET', url: '/schema.graphql' }
  ]
  for (const request of requests) {
    const response = await app.inject({ ...request, payload: request.method === 'POST' ? { query: '{ block(number: 0) { hash } }' } : undefined })
    t.equal(response.statusCode, 404, `${request.method} ${request.url}`)
    t.match(response.json(), { statusCode: 404, code: 'GW_ERR_GRAPHQL_DISABLED', message: /GraphQL is disabled on this instance/ })
  }
  t.equal((await app.inject({ method: 'GET', url: '/api/v2/blocks' })).statusCode, 200, 'REST still serves')
})

t.test('a subscription cannot connect', async (t) => {
  const socket = new WebSocket(url.replace('http', 'ws') + '/api/v2/graphql', 'graphql-transport-ws')
  const outcome = await new Promise<string>((resolve) => {
    socket.addEventListener('open', () => resolve('open'))
    socket.addEventListener('error', () => resolve('error'))
  })
  t.equal(outcome, 'error')
})

t.test('/api-docs lists no GraphQL path and no GraphQL module is loaded', async (t) => {
  const docs = (await app.inject({ method: 'GET', url: '/api-docs/json' })).json()
  t.same(Object.keys(docs.paths).filter((p) => /graphql|graphiql/.test(p)), [])
  t.ok(Object.keys(docs.paths).length > 0, 'the other routes are listed')
  t.notOk(app.hasDecorator('graphql'), 'mercurius is not registered')
  const loaded = Object.keys(createRequire(import.meta.url).cache)
  t.ok(loaded.length > 0, 'CommonJS modules are tracked')
  t.same(loaded.filter((file) => /node_modules\/(mercurius|graphql)\//.test(file)), [], 'neither mercurius nor graphql was imported')
})
