// CORS as a browser on another origin meets it, over real HTTP: simple
// requests carry Access-Control-Allow-Origin, and preflights (the front end's
// /api/v2/stats with updated-gas-oracle, a JSON-RPC POST, GraphQL) answer 204
// with the headers allowed instead of reaching the REST catch-all's 400.
// CORS_ORIGINS as a list is checked on the plugin alone.
import t from 'tap'
import Fastify from 'fastify'
import { build, postRpc } from '../../helper.ts'
import cors from '../../../plugins/cors/index.ts'
import { loadConfig } from '../../../core/config.ts'

const FRONT_END = 'http://explorer.example:3000'
const { url } = await build(t)

const preflight = async (path: string, method: string, headers: string) => await fetch(url + path, {
  method: 'OPTIONS',
  headers: { origin: FRONT_END, 'access-control-request-method': method, 'access-control-request-headers': headers }
})

t.test('a preflight of GET /api/v2/stats with updated-gas-oracle answers 204 allowing it', async (t) => {
  const response = await preflight('/api/v2/stats', 'GET', 'updated-gas-oracle')
  t.equal(response.status, 204)
  t.equal(response.headers.get('access-control-allow-origin'), '*')
  const allowed = (response.headers.get('access-control-allow-headers') ?? '').split(/,\s*/)
  for (const header of ['updated-gas-oracle', 'content-type', 'x-api-key', 'authorization']) t.ok(allowed.includes(header), header)
  t.match(response.headers.get('access-control-allow-methods'), /GET/)
  t.equal(await response.text(), '')
})

t.test('preflights of paths no route serves, JSON-RPC and GraphQL answer 204 too', async (t) => {
  const paths: Array<[string, string]> = [['/api/v2/no-such-action', 'GET'], ['/rpc', 'POST'], ['/', 'POST'], ['/api/v2/graphql', 'POST'], ['/api/v1/graphql', 'POST'], ['/socket/v2/websocket', 'GET']]
  for (const [path, method] of paths) {
    const response = await preflight(path, method, 'content-type')
    t.equal(response.status, 204, path)
    t.equal(response.headers.get('access-control-allow-origin'), '*', path)
  }
})

t.test('responses to another origin carry Access-Control-Allow-Origin and expose the rate-limit headers', async (t) => {
  const stats = await fetch(`${url}/api/v2/stats`, { headers: { origin: FRONT_END, 'updated-gas-oracle': 'true' } })
  t.equal(stats.status, 200)
  t.equal(stats.headers.get('access-control-allow-origin'), '*')
  t.match(stats.headers.get('access-control-expose-headers'), /x-ratelimit-remaining/)
  const rpc = await fetch(`${url}/rpc`, {
    method: 'POST',
    headers: { origin: FRONT_END, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })
  })
  t.equal(rpc.headers.get('access-control-allow-origin'), '*')
  t.same((await rpc.json()).result, '0xc1cbc')
  const graphql = await fetch(`${url}/api/v2/graphql`, {
    method: 'POST',
    headers: { origin: FRONT_END, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' })
  })
  t.equal(graphql.status, 200)
  t.equal(graphql.headers.get('access-control-allow-origin'), '*')
  const missing = await fetch(`${url}/api/v2/no-such-action`, { headers: { origin: FRONT_END } })
  t.equal(missing.status, 400, 'errors carry it as well, so the page can read them')
  t.equal(missing.headers.get('access-control-allow-origin'), '*')
})

t.test('a trailing slash names the same route, as in Blockscout', async (t) => {
  for (const path of ['/api/v2/addresses/', '/api/v2/blocks/', '/api/v2/stats/', '/api/v2/main-page/indexing-status/']) {
    const response = await fetch(url + path)
    t.equal(response.status, 200, path)
  }
  t.equal((await postRpc(url, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }, '/rpc/')).json.result, '0xc1cbc')
})

t.test('CORS_ORIGINS as a list allows those origins only', async (t) => {
  const config = loadConfig({ CORS_ORIGINS: 'https://explorer.example, http://localhost:3000' })
  t.same(config.cors.origins, ['https://explorer.example', 'http://localhost:3000'])
  const app = Fastify()
  t.teardown(async () => await app.close())
  await app.register(cors, config.cors)
  app.get('/x', async () => ({ ok: true }))
  const allowed = await app.inject({ method: 'GET', url: '/x', headers: { origin: 'http://localhost:3000' } })
  t.equal(allowed.headers['access-control-allow-origin'], 'http://localhost:3000')
  t.match(String(allowed.headers.vary), /origin/i)
  const refused = await app.inject({ method: 'GET', url: '/x', headers: { origin: 'https://elsewhere.example' } })
  t.equal(refused.headers['access-control-allow-origin'], undefined)
  t.throws(() => loadConfig({ CORS_ORIGINS: 'explorer.example' }), /CORS_ORIGINS/)
})
