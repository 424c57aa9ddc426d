// ETag, Cache-Control and 304 on the hot REST routes, on a real chain: the
// cached answer is the uncached instance's, a new block changes the tag, and
// a 304 is checked and charged as any request. Each test speaks from its own
// address (inject's remoteAddress), so each has a whole rate-limit budget.
import t from 'tap'
import type { InjectOptions } from 'fastify'
import { setTimeout as sleep } from 'node:timers/promises'
import { build } from '../../helper.ts'
import { sealBlocks, writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { buildSecondInstance } from '../../support/second-instance.ts'
import { createApiKey, revokeApiKeys } from '../../../core/api-keys/store.ts'

const PUBLIC = 6
const { wallets, allocFile } = await writeFundedAlloc(t, 2)
const first = await build(t, { GENESIS_ALLOC: allocFile, RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PUBLIC_PER_MIN: String(PUBLIC) })
const { app } = first
await sealBlocks({ rpc: app.geth.rpc, wallets, rounds: 4 })
await waitForIndexed(app)
const uncached = await buildSecondInstance(t, first, { HTTP_CACHE_ENABLED: 'false', INDEXER_ENABLED: 'false' })

let nextAddress = 1
const newAddress = (): string => `10.1.0.${nextAddress++}`
const get = async (url: string, remoteAddress: string, headers: Record<string, string> = {}, on = app) =>
  await on.inject({ method: 'GET', url, remoteAddress, headers } as InjectOptions)

const { items: [tx] } = (await get('/api/v2/transactions', newAddress())).json()
const CACHED = [
  '/api/v2/main-page/blocks',
  '/api/v2/main-page/transactions',
  '/api/v2/stats',
  '/api/v2/stats/charts/transactions',
  '/api/v2/blocks',
  '/api/v2/transactions',
  '/api/v2/blocks/2',
  `/api/v2/transactions/${tx.hash as string}`,
  `/api/v2/transactions/${tx.hash as string}/summary`,
  `/api/v2/transactions/${tx.hash as string}/interpretation`,
  `/api/v2/addresses/${wallets[0]!.address}`,
  `/api/v2/addresses/${wallets[0]!.address}/transactions`
]
/** The members that follow each instance's own reading of the gas prices, not the index: when it was and when the next is due. */
const clockless = (url: string, body: string): unknown => {
  const parsed = JSON.parse(body)
  if (url === '/api/v2/stats') {
    delete parsed.gas_prices_update_in
    delete parsed.gas_price_updated_at
  }
  return parsed
}

t.test('a cached route answers with a weak ETag, Cache-Control and Vary, and the body of an instance without the cache', async (t) => {
  for (const url of CACHED) {
    const address = newAddress()
    const made = await get(url, address)
    const again = await get(url, address)
    const plain = await get(url, address, {}, uncached)
    t.equal(made.statusCode, 200, url)
    t.match(made.headers.etag, /^W\/"\d+-[A-Za-z0-9_-]{16}"$/, url)
    t.equal(again.headers.etag, made.headers.etag, `${url}: the same tag while the head stays`)
    t.equal(made.headers['cache-control'], 'public, max-age=1', url)
    t.match(made.headers.vary, /x-api-key, authorization/, url)
    t.equal(again.body, made.body, `${url}: the kept answer is the one made`)
    t.equal(again.headers['content-type'], made.headers['content-type'], url)
    t.equal(plain.statusCode, 200, url)
    t.equal(plain.headers.etag, undefined, `${url}: no tag with HTTP_CACHE_ENABLED=false`)
    t.same(clockless(url, made.body), clockless(url, plain.body), `${url}: the body is the uncached instance's`)
  }
})

t.test('/api/v2/stats keeps one answer per updated-gas-oracle value, and says it varies on it', async (t) => {
  const address = newAddress()
  const plain = await get('/api/v2/stats', address)
  const detailed = await get('/api/v2/stats', address, { 'updated-gas-oracle': 'true' })
  t.match(plain.headers.vary, /updated-gas-oracle/)
  t.not(detailed.headers.etag, plain.headers.etag)
  const price = detailed.json().gas_prices?.average
  if (price !== undefined && price !== null) t.type(price, 'object', 'the detailed answer is not the plain one kept')
})

t.test('If-None-Match naming the current tag answers 304 with no body; another tag gets the body', async (t) => {
  const address = newAddress()
  const made = await get('/api/v2/main-page/blocks', address)
  const etag = made.headers.etag as string
  for (const header of [etag, `"other", ${etag}`, '*', etag.slice(2)]) {
    const revalidated = await get('/api/v2/main-page/blocks', address, { 'if-none-match': header })
    t.equal(revalidated.statusCode, 304, header)
    t.equal(revalidated.body, '', header)
    t.equal(revalidated.headers.etag, etag, header)
    t.equal(revalidated.headers['cache-control'], 'public, max-age=1')
    t.equal(revalidated.headers['content-length'], undefined)
  }
  const other = await get('/api/v2/main-page/blocks', newAddress(), { 'if-none-match': 'W/"1-AAAAAAAAAAAAAAAA"' })
  t.equal(other.statusCode, 200)
  t.equal(other.body, made.body)
})

t.test('another instance on the same head gives the same tag, and answers 304 to it before it kept the answer', async (t) => {
  const other = await buildSecondInstance(t, first, { INDEXER_ENABLED: 'false' })
  for (const url of ['/api/v2/blocks/1', '/api/v2/main-page/blocks']) {
    const address = newAddress()
    const made = await get(url, address)
    const elsewhere = await get(url, address, { 'if-none-match': made.headers.etag as string }, other)
    t.equal(elsewhere.statusCode, 304, url)
    t.equal(elsewhere.headers.etag, made.headers.etag, url)
    t.equal(elsewhere.body, '', url)
  }
})

t.test('a new block changes the tag: the old one gets the new body', async (t) => {
  const address = newAddress()
  const before = await get('/api/v2/main-page/blocks', address)
  const head = await sealBlocks({ rpc: app.geth.rpc, wallets, rounds: 1 })
  await waitForIndexed(app)
  const after = await get('/api/v2/main-page/blocks', address, { 'if-none-match': before.headers.etag as string })
  t.equal(after.statusCode, 200)
  t.not(after.headers.etag, before.headers.etag)
  t.equal(after.json()[0].height, head.head, 'the answer shows the new block')
  t.match(after.headers.etag, new RegExp(`^W/"${head.head}-`), 'the tag names the new head')
})

t.test('a 304 carries the rate-limit headers and is charged: the request past the limit answers 429', async (t) => {
  const address = newAddress()
  const made = await get('/api/v2/main-page/transactions', address)
  t.equal(made.headers['x-ratelimit-remaining'], String(PUBLIC - 1))
  for (let i = 2; i <= PUBLIC; i++) {
    const revalidated = await get('/api/v2/main-page/transactions', address, { 'if-none-match': made.headers.etag as string })
    t.equal(revalidated.statusCode, 304)
    t.equal(revalidated.headers['x-ratelimit-limit'], String(PUBLIC))
    t.equal(revalidated.headers['x-ratelimit-remaining'], String(PUBLIC - i))
    t.match(revalidated.headers['ratelimit-policy'], `"public";q=${PUBLIC};w=60`)
  }
  const refused = await get('/api/v2/main-page/transactions', address, { 'if-none-match': made.headers.etag as string })
  t.equal(refused.statusCode, 429)
  t.equal(refused.headers.etag, undefined, 'a refusal is no cached answer')
})

t.test('a request with an API key gets private, no-cache; a revoked key is refused, not served from the cache', async (t) => {
  const { listing, key } = await createApiKey(app.db.knex, { label: 'http-cache', tier: 'premium' })
  const address = newAddress()
  const keyed = await get('/api/v2/blocks', address, { 'x-api-key': key })
  const etag = keyed.headers.etag as string
  t.equal(keyed.statusCode, 200)
  t.equal(keyed.headers['cache-control'], 'private, no-cache')
  t.equal((await get('/api/v2/blocks', address, { 'x-api-key': key, 'if-none-match': etag })).statusCode, 304)
  await revokeApiKeys(app.db.knex, listing.id)
  // Other instances' lookups hear of the revocation by NOTIFY: wait for it here too.
  let status = 0
  for (let tries = 0; tries < 50 && status !== 401; tries++) {
    status = (await get('/api/v2/blocks', address, { 'x-api-key': key, 'if-none-match': etag })).statusCode
    if (status !== 401) await sleep(100)
  }
  t.equal(status, 401)
})

t.test('errors and routes outside the list carry no tag', async (t) => {
  const address = newAddress()
  const missing = await get(`/api/v2/transactions/0x${'00'.repeat(32)}`, address)
  t.equal(missing.statusCode, 404)
  t.equal(missing.headers.etag, undefined)
  const invalid = await get('/api/v2/blocks?block_number=x', address)
  t.equal(invalid.statusCode, 422)
  t.equal(invalid.headers.etag, undefined)
  const status = await get('/api/v2/main-page/indexing-status', address)
  t.equal(status.statusCode, 200)
  t.equal(status.headers.etag, undefined)
  t.equal(status.headers['cache-control'], undefined)
})
