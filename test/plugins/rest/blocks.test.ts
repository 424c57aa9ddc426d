// REST blocks endpoints on a real chain: values from the node, shapes from Blockscout's OpenAPI spec.
import t from 'tap'
import { build } from '../../helper.ts'
import { sealBlocks, writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { OPENAPI_SPEC_PRESENT, checkSpec } from '../../support/openapi.ts'

const { wallets, allocFile } = await writeFundedAlloc(t, 2)
const { app } = await build(t, { GENESIS_ALLOC: allocFile })
await sealBlocks({ rpc: app.geth.rpc, wallets, rounds: 60 })
const head = await waitForIndexed(app)
const rpc = app.geth.rpc
const get = async (url: string) => await app.inject({ method: 'GET', url })
if (!OPENAPI_SPEC_PRESENT) t.comment('../shared/api is absent: responses are not checked against Blockscout\'s OpenAPI spec')

t.test('GET /api/v2/blocks walks every block once through next_page_params', async (t) => {
  const seen: number[] = []
  let query = ''
  for (;;) {
    const response = await get(`/api/v2/blocks${query}`)
    t.equal(response.statusCode, 200)
    const body = response.json()
    checkSpec(t, '/v2/blocks', body)
    seen.push(...body.items.map((b: { height: number }) => b.height))
    if (body.next_page_params === null) break
    t.same(Object.keys(body.next_page_params).sort(), ['block_number', 'items_count'])
    query = '?' + new URLSearchParams(body.next_page_params).toString()
  }
  t.same(seen, Array.from({ length: head + 1 }, (_, i) => head - i), 'newest first, none missing or repeated')
})

t.test('GET /api/v2/blocks/{number_or_hash} matches the node', async (t) => {
  const node = await rpc.call<Record<string, string>>('eth_getBlockByNumber', ['0x5', true])
  for (const id of ['5', node.hash!]) {
    const response = await get(`/api/v2/blocks/${id}`)
    t.equal(response.statusCode, 200)
    const body = response.json()
    checkSpec(t, '/v2/blocks/{block_hash_or_number_param}', body)
    t.equal(body.hash, node.hash)
    t.equal(body.parent_hash, node.parentHash)
    t.equal(body.height, 5)
    t.equal(body.gas_used, BigInt(node.gasUsed!).toString())
    t.equal(body.transactions_count, (node.transactions as unknown as unknown[]).length)
    t.equal(body.timestamp, new Date(Number(node.timestamp) * 1000).toISOString().replace('Z', '000Z'))
    t.equal(body.miner.hash.toLowerCase(), (await rpc.call<string>('clique_getSigner', [node.hash])).toLowerCase(), 'the miner is the clique signer')
    const receipts = await rpc.call<Array<{ gasUsed: string, effectiveGasPrice: string }>>('eth_getBlockReceipts', ['0x5'])
    const fees = receipts.reduce((sum, r) => sum + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice), 0n)
    t.equal(body.transaction_fees, fees.toString())
    t.equal(body.burnt_fees, (BigInt(node.baseFeePerGas!) * BigInt(node.gasUsed!)).toString())
  }
})

t.test('GET /api/v2/main-page/blocks answers the 4 newest', async (t) => {
  const body = (await get('/api/v2/main-page/blocks')).json()
  checkSpec(t, '/v2/main-page/blocks', body)
  t.same(body.map((b: { height: number }) => b.height), [head, head - 1, head - 2, head - 3])
})

t.test('withdrawals: none on a clique chain, whose blocks the node gives no withdrawals field', async (t) => {
  const block = await rpc.call<Record<string, unknown>>('eth_getBlockByNumber', ['0x' + head.toString(16), false])
  t.notOk('withdrawals' in block, 'the node\'s block has no withdrawals (no Shanghai under clique)')
  const empty = { items: [], next_page_params: null }
  for (const [url, spec] of [
    [`/api/v2/blocks/${head}/withdrawals`, '/v2/blocks/{block_hash_or_number_param}/withdrawals'],
    [`/api/v2/blocks/${block.hash as string}/withdrawals?index=5&items_count=50`, '/v2/blocks/{block_hash_or_number_param}/withdrawals'],
    [`/api/v2/addresses/${wallets[0]!.address}/withdrawals`, '/v2/addresses/{address_hash_param}/withdrawals'],
    ['/api/v2/withdrawals', '/v2/withdrawals']
  ] as const) {
    const body = (await get(url)).json()
    checkSpec(t, spec, body)
    t.same(body, empty, url)
  }
  t.same((await get(`/api/v2/blocks/${head + 1000}/withdrawals`)).json(), { message: 'Not found' }, 'a block not indexed: 404')
  for (const url of ['/api/v2/blocks/x/withdrawals', '/api/v2/withdrawals?index=-1', '/api/v2/withdrawals?foo=1', '/api/v2/addresses/0x12/withdrawals']) {
    t.equal((await get(url)).statusCode, 422, url)
  }
})

t.test('bad input answers 422 in Blockscout\'s shape, a missing block 404, an unknown action 400', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['/api/v2/blocks/0x1234', '/block_hash_or_number_param', 'Invalid format'],
    ['/api/v2/blocks/-1', '/block_hash_or_number_param', 'Invalid format'],
    ['/api/v2/blocks?foo=1', '/foo', 'Unexpected field: foo'],
    ['/api/v2/blocks?block_number=abc', '/block_number', 'Invalid integer'],
    ['/api/v2/blocks?items_count=51', '/items_count', '51 is larger than inclusive maximum 50'],
    ['/api/v2/blocks?items_count=0', '/items_count', '0 is smaller than inclusive minimum 1'],
    ['/api/v2/blocks?type=orphan', '/type', 'Invalid value for enum']
  ]
  for (const [url, pointer, detail] of cases) {
    const response = await get(url)
    t.equal(response.statusCode, 422, url)
    const error = response.json().errors[0]
    t.equal(error.title, 'Invalid value')
    t.equal(error.source.pointer, pointer, url)
    t.match(error.detail, detail, url)
  }
  for (const url of ['/api/v2/blocks/3000000000', '/api/v2/blocks/99999999999999999999999', `/api/v2/blocks/0x${'ab'.repeat(32)}`]) {
    const response = await get(url)
    t.equal(response.statusCode, 404, url)
    t.same(response.json(), { message: 'Not found' })
  }
  const unknown = await get('/api/v2/nothing-here')
  t.equal(unknown.statusCode, 400)
  t.same(unknown.json(), { message: 'Unknown API v2 action' })
  const tampered = await get(`/api/v2/blocks?block_number=${head + 1000}&items_count=50`)
  t.equal(tampered.statusCode, 200, 'a cursor past the head is just the first page')
})

t.test('Blockscout\'s /api/health, its probes and the config routes answer as Blockscout does', async (t) => {
  const health = await get('/api/health')
  t.equal(health.statusCode, 200)
  t.match(health.json(), { healthy: true, error: null, metadata: { blocks: { healthy: true, latest_block: { db: { number: String(head) }, node: { number: String(head) } } } } })
  t.match(health.json().metadata.blocks.latest_block.db.timestamp, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}Z$/)
  for (const probe of ['liveness', 'readiness']) {
    const response = await get(`/api/health/${probe}`)
    t.equal(response.statusCode, 200)
    t.equal(response.body, 'OK')
  }
  t.match((await get('/api/v2/config/backend-version')).json(), { backend_version: /^v\d+\.\d+\.\d+$/ })
  const backend = await get('/api/v2/config/backend')
  t.same(backend.json(), { chain_type: null, openapi_spec_folder_name: null })
  checkSpec(t, '/v2/config/backend', backend.json())
  const indexer = await get('/api/v2/config/indexer')
  t.same(indexer.json(), {
    indexer_enabled: true,
    block_reward_fetcher_enabled: false,
    internal_transactions_fetcher_enabled: true,
    pending_transactions_fetcher_enabled: false,
    token_instance_retry_fetcher_enabled: false,
    token_instance_sanitize_fetcher_enabled: false
  })
  checkSpec(t, '/v2/config/indexer', indexer.json())
  t.equal((await get('/api/v2/config/indexer?extra=1')).statusCode, 422, 'unknown parameters answer 422 as elsewhere')
  await app.geth.supervisor!.stop()
  const down = await get('/api/health')
  t.equal(down.statusCode, 500, 'unhealthy when the node does not answer')
  t.equal(down.json().healthy, false)
})
