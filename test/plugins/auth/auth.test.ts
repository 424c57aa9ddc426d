// API keys with limits off (RATE_LIMIT_ENABLED=false, a private instance):
// keys sent are still checked, and each interface refuses a bad one with 401
// in its own channel. Also the admin API, and the key never being kept in
// clear by the database or the logs.
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { Writable } from 'node:stream'
import pino from 'pino'
import { buildTestConfig } from '../../helper.ts'
import { buildApp } from '../../../plugins/index.ts'
import { createApiKey, revokeApiKeys } from '../../../core/api-keys/store.ts'
import { generateApiKey } from '../../../core/api-keys/key-format.ts'

const ADMIN_TOKEN = 'admin-token-for-the-test-0123456789'
const logLines: string[] = []
const { config } = await buildTestConfig(t, { LOG_LEVEL: 'debug', ADMIN_TOKEN })
const app = await buildApp(config, { logger: pino({ level: 'debug' }, new Writable({ write (chunk, _encoding, done) { logLines.push(String(chunk)); done() } })) })
t.teardown(async () => await app.close())
await app.listen({ host: '127.0.0.1', port: 0 })
const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

const REST_PATH = '/api/v2/main-page/indexing-status'
const rpcBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })
const { key: liveKey } = await createApiKey(app.db.knex, { label: 'live', tier: 'premium' })

type Channel = 'rest' | 'json-rpc' | 'graphql' | 'etherscan'
async function sendKey (channel: Channel, headers: Record<string, string>, query = ''): Promise<{ statusCode: number, json: () => any }> {
  switch (channel) {
    case 'rest': return await app.inject({ method: 'GET', url: REST_PATH + query, headers })
    case 'json-rpc': return await app.inject({ method: 'POST', url: '/rpc' + query, headers, payload: rpcBody })
    case 'graphql': return await app.inject({ method: 'POST', url: '/api/v2/graphql' + query, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify({ query: '{ __typename }' }) })
    case 'etherscan': return await app.inject({ method: 'GET', url: '/api?module=stats&action=ethsupply' + query.replace(/^\?/, '&'), headers })
  }
}

/** A revocation is heard through PostgreSQL's NOTIFY: within a second, not at once. */
async function refusedWithin (send: () => Promise<{ statusCode: number, json: () => any }>): Promise<{ statusCode: number, json: () => any }> {
  const deadline = Date.now() + 1000
  let response = await send()
  while (response.statusCode === 200 && Date.now() < deadline) response = await send()
  return response
}

function checkRefused (t: Test, channel: Channel, response: { statusCode: number, json: () => any }, what: string): void {
  t.equal(response.statusCode, 401, `${channel}: ${what} answers 401`)
  const body = response.json()
  // One message whatever the reason: a client probing keys learns nothing from it.
  if (channel === 'json-rpc') t.same(body, { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Unauthorized', data: 'Invalid API key' } }, `${channel}: an error object for the request's id`)
  else if (channel === 'graphql') t.same(body.errors, [{ message: 'Invalid API key', extensions: { code: 'UNAUTHENTICATED' } }], `${channel}: errors[]`)
  else if (channel === 'etherscan') t.same(body, { status: '0', message: 'NOTOK', result: 'Invalid API Key' }, `${channel}: Etherscan's error`)
  else t.same(body, { statusCode: 401, code: 'GW_ERR_API_KEY_INVALID', error: 'Unauthorized', message: 'Invalid API key' }, `${channel}: the coded error`)
}

t.test('with limits off, a live key is served and answers carry no limit headers', async (t) => {
  for (const channel of ['rest', 'json-rpc', 'graphql', 'etherscan'] as const) {
    const response = await sendKey(channel, { 'x-api-key': liveKey })
    t.equal(response.statusCode, 200, channel)
    t.notOk((response as unknown as { headers: Record<string, unknown> }).headers['x-ratelimit-limit'], `${channel}: no limit headers`)
  }
})

t.test('an unknown, a malformed and a revoked key answer 401 in each interface\'s own channel', async (t) => {
  const { key: revoked, listing } = await createApiKey(app.db.knex, { label: 'to revoke', tier: 'premium' })
  await revokeApiKeys(app.db.knex, listing.id)
  for (const channel of ['rest', 'json-rpc', 'graphql', 'etherscan'] as const) {
    checkRefused(t, channel, await sendKey(channel, { 'x-api-key': generateApiKey() }), 'an unknown key')
    checkRefused(t, channel, await sendKey(channel, { 'x-api-key': 'tg_short' }), 'a malformed key')
    // Its creation may be heard (and the live key read) before its revocation is: refused within a second, as any revocation.
    checkRefused(t, channel, await refusedWithin(async () => await sendKey(channel, { authorization: `Bearer ${revoked}` })), 'a revoked key')
    checkRefused(t, channel, await sendKey(channel, {}, `?apikey=${generateApiKey()}`), 'an unknown key in the query')
  }
  const path = await app.inject({ method: 'POST', url: `/rpc/${generateApiKey()}`, payload: rpcBody })
  checkRefused(t, 'json-rpc', path, 'an unknown key in the path')
})

t.test('JSON-RPC: a refused key answers -32001 for the request\'s own id, and for each id of a batch', async (t) => {
  const single = await app.inject({ method: 'POST', url: '/rpc', headers: { 'x-api-key': generateApiKey() }, payload: JSON.stringify({ jsonrpc: '2.0', id: 'abc', method: 'eth_chainId' }) })
  t.equal(single.statusCode, 401)
  t.equal(single.json().id, 'abc')
  const batch = await app.inject({
    method: 'POST',
    url: `/rpc/${generateApiKey()}`,
    payload: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }, { jsonrpc: '2.0', id: 'two', method: 'eth_blockNumber' }, { jsonrpc: '2.0', method: 'eth_chainId' }])
  })
  t.equal(batch.statusCode, 401)
  t.same(batch.json().map((answer: { id: unknown, error: { code: number } }) => [answer.id, answer.error.code]), [[1, -32001], ['two', -32001], [null, -32001]], 'one error per item, as over the rate limit')
  const garbage = await app.inject({ method: 'POST', url: '/rpc', headers: { 'x-api-key': 'tg_short' }, payload: '{not json' })
  t.equal(garbage.statusCode, 401)
  t.equal(garbage.json().id, null, 'a body that does not parse has no id to echo')
})

t.test('the 401 says the same for an unknown, a malformed and a revoked key; the log says which', async (t) => {
  const { key: revoked, listing } = await createApiKey(app.db.knex, { label: 'revoked, for the log', tier: 'premium' })
  await revokeApiKeys(app.db.knex, listing.id)
  const before = logLines.length
  const bodies = new Set<string>()
  for (const key of [generateApiKey(), 'tg_short', revoked]) {
    const response = await refusedWithin(async () => await sendKey('rest', { 'x-api-key': key }))
    t.equal(response.statusCode, 401)
    bodies.add(JSON.stringify(response.json()))
  }
  t.equal(bodies.size, 1, 'one body for all three')
  const reasons = logLines.slice(before).map((line) => JSON.parse(line)).filter((l) => l.msg === 'API key refused')
  t.same(reasons.map((l) => l.reason), ['the key is unknown', 'the key is malformed', 'the key is revoked'], 'each reason logged')
  t.ok(reasons.every((l) => l.level === 30 && typeof l.reqId === 'string'), 'at info, with the request id')
})

t.test('a key in both header and query: the same one is served, two different ones are refused', async (t) => {
  t.equal((await sendKey('rest', { 'x-api-key': liveKey }, `?apikey=${liveKey}`)).statusCode, 200)
  checkRefused(t, 'rest', await sendKey('rest', { 'x-api-key': liveKey }, `?apikey=${generateApiKey()}`), 'a live key with an unknown one')
  checkRefused(t, 'rest', await sendKey('rest', { 'x-api-key': generateApiKey() }, `?apikey=${liveKey}`), 'an unknown key with a live one')
  checkRefused(t, 'rest', await sendKey('rest', {}, `?apikey=${liveKey}&apikey=${liveKey}`), 'the query parameter twice')
  checkRefused(t, 'json-rpc', await app.inject({ method: 'POST', url: `/rpc/${liveKey}`, headers: { 'x-api-key': generateApiKey() }, payload: rpcBody }), 'a path key with another header key')
})

t.test('Etherscan-style POST /api: a key in the form or JSON body is checked like one in the query', async (t) => {
  const post = async (payload: string | Record<string, string>, query = '') => await app.inject({
    method: 'POST',
    url: '/api' + query,
    ...(typeof payload === 'string' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload } : { payload })
  })
  const live = await post(`module=stats&action=ethsupply&apikey=${liveKey}`)
  t.equal(live.statusCode, 200, 'a live key in a form body is served')
  t.equal(live.json().status, '1')
  t.equal((await post({ module: 'stats', action: 'ethsupply', apikey: liveKey })).statusCode, 200, 'a live key in a JSON body is served')
  checkRefused(t, 'etherscan', await post(`module=stats&action=ethsupply&apikey=${generateApiKey()}`), 'an unknown key in a form body')
  checkRefused(t, 'etherscan', await post({ module: 'stats', action: 'ethsupply', apikey: 'tg_short' }), 'a malformed key in a JSON body')
  checkRefused(t, 'etherscan', await post(`module=stats&action=ethsupply&apikey=${generateApiKey()}`, `?apikey=${liveKey}`), 'a body key other than the query\'s')
  checkRefused(t, 'etherscan', await post(`module=stats&action=ethsupply&apikey=${liveKey}&apikey=${generateApiKey()}`), 'two keys in one form body')
})

t.test('hostile keys of every length and alphabet: 401, never 5xx, never served', async (t) => {
  const alphabets = ['a', 'Z9', '-_', '€ü漢', '\u0000\u0001\u007f', '"\'<>{}', '%00%ff', ' \t', 'tg_', '🔑']
  const candidates: string[] = ['', 'tg_', liveKey + 'x', liveKey.slice(0, -1), liveKey.toUpperCase(), ' ' + liveKey]
  for (const alphabet of alphabets) {
    // Sliced by code point: half an emoji is no string a client could send.
    for (const length of [1, 2, 43, 46, 47, 1000, 8000]) candidates.push([...alphabet.repeat(length)].slice(0, length).join(''))
  }
  for (const candidate of candidates) {
    const query = await app.inject({ method: 'GET', url: `${REST_PATH}?apikey=${encodeURIComponent(candidate)}` })
    t.equal(query.statusCode, 401, `query ${JSON.stringify(candidate.slice(0, 20))} (${candidate.length})`)
    if (/^[\x20-\x7e]*$/.test(candidate) && candidate.trim() === candidate) {
      const header = await app.inject({ method: 'GET', url: REST_PATH, headers: { 'x-api-key': candidate } })
      t.equal(header.statusCode, 401, `header ${JSON.stringify(candidate.slice(0, 20))} (${candidate.length})`)
    }
  }
})

t.test('hostile keys in the other two places, Authorization: Bearer and /rpc/<key>: 401, never 5xx, never served', async (t) => {
  const candidates = ['x', 'tg_', 'tg_' + '-'.repeat(43), liveKey.slice(0, -1) + '*', liveKey + liveKey, '€ü漢'.repeat(20), '%00%ff', 'a'.repeat(8000)]
  for (const candidate of candidates) {
    const path = await app.inject({ method: 'POST', url: `/rpc/${encodeURIComponent(candidate)}`, payload: rpcBody })
    // A segment past the router's parameter limit (100 characters) is refused before any key is read (414): no free pass either.
    t.ok(path.statusCode === 401 || ([404, 414].includes(path.statusCode) && candidate.length > 100), `path ${JSON.stringify(candidate.slice(0, 20))} (${candidate.length}): ${path.statusCode}`)
    if (/^[\x21-\x7e]*$/.test(candidate)) {
      const bearer = await sendKey('graphql', { authorization: `Bearer ${candidate}` })
      t.equal(bearer.statusCode, 401, `bearer ${JSON.stringify(candidate.slice(0, 20))} (${candidate.length})`)
    }
  }
})

t.test('a 1 MB header is refused with 431 on a real socket', async (t) => {
  const response = await fetch(url + REST_PATH, { headers: { 'x-api-key': 'tg_' + 'a'.repeat(1 << 20) } }).catch((err: Error) => err)
  if (response instanceof Error) t.pass(`the connection was refused: ${response.message}`)
  else t.equal(response.status, 431)
  t.equal((await fetch(url + REST_PATH)).status, 200, 'the server still answers')
})

t.test('admin API: refused without the token, then create, list, rotate and revoke', async (t) => {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
  t.equal((await app.inject({ method: 'GET', url: '/admin/api/keys' })).statusCode, 401)
  const wrong = await app.inject({ method: 'GET', url: '/admin/api/keys', headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } })
  t.equal(wrong.statusCode, 401)
  t.equal(wrong.json().code, 'GW_ERR_ADMIN_UNAUTHORIZED')
  const created = await app.inject({ method: 'POST', url: '/admin/api/keys', headers: admin, payload: { label: 'from admin', limit_per_min: 50 } })
  t.equal(created.statusCode, 201)
  const { key, id } = created.json()
  t.match(created.json(), { label: 'from admin', tier: 'premium', limit_per_min: 50, revoked_at: null })
  t.equal((await sendKey('rest', { 'x-api-key': key })).statusCode, 200)
  const bad = await app.inject({ method: 'POST', url: '/admin/api/keys', headers: admin, payload: { label: 'x', tier: 'gold' } })
  t.equal(bad.statusCode, 400)
  const listed = (await app.inject({ method: 'GET', url: '/admin/api/keys', headers: admin })).json()
  t.ok(listed.some((k: { id: string }) => k.id === id), 'listed')
  t.notOk(JSON.stringify(listed).includes(key), 'the list never holds a key')
  const rotated = await app.inject({ method: 'POST', url: `/admin/api/keys/${id}/rotate`, headers: admin, payload: { grace_seconds: 0 } })
  t.equal(rotated.statusCode, 201)
  t.equal(rotated.json().label, 'from admin')
  t.equal(rotated.json().old.id, id)
  checkRefused(t, 'rest', await refusedWithin(async () => await sendKey('rest', { 'x-api-key': key })), 'the rotated-out key')
  t.equal((await sendKey('rest', { 'x-api-key': rotated.json().key })).statusCode, 200, 'the new key works')
  const revoked = await app.inject({ method: 'POST', url: '/admin/api/keys/from%20admin/revoke', headers: admin })
  t.equal(revoked.statusCode, 200)
  t.equal(revoked.json().length, 1)
  checkRefused(t, 'rest', await refusedWithin(async () => await sendKey('rest', { 'x-api-key': rotated.json().key })), 'the revoked key')
  t.equal((await app.inject({ method: 'POST', url: '/admin/api/keys/nobody/revoke', headers: admin })).statusCode, 404)
  const spec = (await app.inject({ method: 'GET', url: '/api-docs/json' })).json()
  t.same(spec.paths['/admin/api/keys'].get.tags, ['admin'], 'on /api-docs under its own tag')
})

t.test('the database and the logs never hold a key in clear', async (t) => {
  const { key } = await createApiKey(app.db.knex, { label: 'secret', tier: 'premium' })
  await sendKey('rest', { 'x-api-key': key })
  await sendKey('rest', {}, `?apikey=${key}`)
  await sendKey('graphql', { authorization: `Bearer ${key}` })
  await app.inject({ method: 'POST', url: `/rpc/${key}`, payload: rpcBody })
  await app.apiKeys.usage.flush()
  const { stdout: dump } = await promisify(execFile)('pg_dump', [config.databaseUrl!], { maxBuffer: 1 << 28 })
  t.ok(dump.includes('secret'), 'the dump holds the key\'s row')
  t.notOk(dump.includes(key), 'but not the key')
  t.notOk(dump.includes(key.slice(3)), 'nor its random part')
  t.ok(logLines.some((line) => line.includes('/rpc/[key]')), 'requests were logged')
  t.notOk(logLines.some((line) => line.includes(key.slice(3))), 'the log never holds the key')
})
