// REST tokens (list, token, counters, holders, NFT instances) and smart
// contracts on a real chain: values from the node (eth_call, eth_getCode,
// eth_getLogs, traces), shapes from Blockscout's OpenAPI spec, every list
// walked to its end.
import t from 'tap'
import { Wallet, getAddress, id as topicOf } from 'ethers'
import { waitForIndexed } from '../../support/indexer.ts'
import { OPENAPI_SPEC_PRESENT, checkSpec } from '../../support/openapi.ts'
import { walkList } from '../../support/rest.ts'
import { INDEXED_TIMEOUT_MS, buildIndexedTokenChain, NFT_COUNT, TOKEN_COUNT } from '../../support/token-chain.ts'

const { app, wallets, chain } = await buildIndexedTokenChain(t)
const rpc = app.geth.rpc
const get = async (path: string) => await app.inject({ method: 'GET', url: path })
const call = async (to: string, data: string) => await rpc.call<string>('eth_call', [{ to, data }, 'latest'])
const token0 = chain.tokens[0]!
const [holder0, , , holder3] = chain.holders as [Wallet, Wallet, Wallet, Wallet]
const ZERO = '0x0000000000000000000000000000000000000000'
if (!OPENAPI_SPEC_PRESENT) t.comment('../shared/api is absent: responses are not checked against Blockscout\'s OpenAPI spec')

type Token = { address_hash: string, name: string | null, symbol: string | null, type: string, holders_count: string, total_supply: string | null, decimals: string | null }

t.test('GET /api/v2/tokens walks every token once, by holders then name, as Blockscout orders them', async (t) => {
  const { items, pages } = await walkList<Token>(t, app, '/api/v2/tokens', '/v2/tokens/')
  t.same(Object.keys(pages[0]!.next_page_params!).sort(), ['contract_address_hash', 'fiat_value', 'holders_count', 'is_name_null', 'items_count', 'market_cap', 'name'])
  const all = [...chain.tokens, chain.nft, chain.multi].map((a) => getAddress(a))
  t.same(items.map((k) => k.address_hash).sort(), all.sort(), 'every token, checksummed, none repeated')
  t.same(items.slice(0, 4).map((k) => k.address_hash), [token0, chain.nft, chain.multi, chain.tokens[1]].map((a) => getAddress(a!)),
    'most holders first; the nameless ERC-1155 after the named NFT with as many holders')
  const ones = items.slice(4).map((k) => k.name!)
  t.same(ones, [...ones].sort(), 'one-holder tokens by name')
  for (const k of items.filter((k) => k.type === 'ERC-20')) {
    t.equal(k.total_supply, BigInt(await call(k.address_hash, chain.abi.token.encodeFunctionData('totalSupply'))).toString(), `${k.name} total supply`)
  }
  // Pages of three end on the nameless token: the is_name_null cursor.
  const small = await walkList<Token>(t, app, '/api/v2/tokens', '/v2/tokens/', { limit: '3' })
  t.same(small.items.map((k) => k.address_hash), items.map((k) => k.address_hash), 'pages of three give the same list')
  t.ok(small.pages.some((p) => p.next_page_params?.is_name_null === true), 'a cursor on the nameless token')
  t.equal(small.pages[0]!.next_page_params!.limit, 3, 'limit is echoed')
  const ascending = await walkList<Token>(t, app, '/api/v2/tokens', '/v2/tokens/', { sort: 'holders_count', order: 'asc' })
  t.same(ascending.items.map((k) => k.address_hash).sort(), all.sort(), 'ascending: the same tokens')
  t.ok(ascending.items.every((k, i) => i === 0 || Number(ascending.items[i - 1]!.holders_count) <= Number(k.holders_count)), 'fewest holders first')
})

t.test('GET /api/v2/tokens filters by type and searches names and symbols', async (t) => {
  const names = async (query: Record<string, string>) =>
    (await walkList<Token>(t, app, '/api/v2/tokens', '/v2/tokens/', query)).items.map((k) => k.name)
  t.same(await names({ type: 'ERC-721' }), ['Test NFT'])
  t.same((await names({ type: '[ERC-721,ERC-1155]' })).length, 2)
  t.equal((await names({ type: 'ERC-20' })).length, TOKEN_COUNT)
  t.same((await names({ q: 'Token 1' })).sort(), ['Token 1', ...Array.from({ length: 10 }, (_, i) => `Token 1${i}`)].sort(), 'every word a prefix')
  t.same(await names({ q: 'tk7' }), ['Token 7'], 'symbols too, any case')
  t.same(await names({ q: 'test nft' }), ['Test NFT'])
  t.same(await names({ q: chain.tokens[5]!.toLowerCase() }), ['Token 5'], 'an address finds its token')
  t.same(await names({ q: 'nothing-like-it' }), [])
  t.same(await names({ q: 'Token', type: 'ERC-721' }), [])
  const page = (await get('/api/v2/tokens?q=Token')).json()
  t.equal(page.next_page_params.q, 'Token', 'q is echoed')
  t.same((await get('/api/v2/tokens/?type=ERC-721')).json().items.map((k: Token) => k.name), ['Test NFT'], 'the spec\'s path, with its trailing slash')
})

t.test('GET /api/v2/tokens/{hash} reads as the contract answers', async (t) => {
  const body = (await get(`/api/v2/tokens/${token0.toLowerCase()}`)).json()
  checkSpec(t, '/v2/tokens/{address_hash_param}', body)
  const read = async (fn: string) => chain.abi.token.decodeFunctionResult(fn, await call(token0, chain.abi.token.encodeFunctionData(fn)))[0]
  t.match(body, {
    address_hash: getAddress(token0),
    name: await read('name'),
    symbol: await read('symbol'),
    decimals: String(await read('decimals')),
    total_supply: String(await read('totalSupply')),
    type: 'ERC-20',
    exchange_rate: null
  })
  const nft = (await get(`/api/v2/tokens/${chain.nft}`)).json()
  checkSpec(t, '/v2/tokens/{address_hash_param}', nft)
  t.match(nft, { type: 'ERC-721', name: 'Test NFT', symbol: 'TNFT', decimals: null, holders_count: '3' })
  for (const missing of [Wallet.createRandom().address, chain.caller]) {
    const response = await get(`/api/v2/tokens/${missing}`)
    t.equal(response.statusCode, 404)
    t.same(response.json(), { message: 'Not found' })
  }
})

type Holder = { address: { hash: string }, value: string, token_id: string | null }

t.test('GET /api/v2/tokens/{hash}/holders walks every holder with the contract\'s balance', async (t) => {
  const spec = '/v2/tokens/{address_hash_param}/holders'
  const { items, pages } = await walkList<Holder>(t, app, `/api/v2/tokens/${token0}/holders`, spec)
  t.same(Object.keys(pages[0]!.next_page_params!).sort(), ['address_hash', 'items_count', 'value'])
  const candidates = [...wallets.map((w) => w.address), chain.caller]
  const onChain = new Map<string, bigint>()
  for (const a of candidates) {
    const balance = BigInt(await call(token0, chain.abi.token.encodeFunctionData('balanceOf', [a])))
    if (balance > 0n) onChain.set(getAddress(a), balance)
  }
  t.same(new Map(items.map((h) => [h.address.hash, BigInt(h.value)])), onChain, 'every holder, none missing or repeated, values from balanceOf')
  t.ok(items.every((h, i) => i === 0 || BigInt(items[i - 1]!.value) >= BigInt(h.value)), 'highest value first')
  const token = (await get(`/api/v2/tokens/${token0}`)).json()
  t.equal(token.holders_count, String(onChain.size))
  t.ok(items.every((h) => h.token_id === null))

  const nftHolders = (await get(`/api/v2/tokens/${chain.nft}/holders`)).json()
  checkSpec(t, spec, nftHolders)
  for (const h of nftHolders.items as Holder[]) {
    t.equal(BigInt(h.value), BigInt(await call(chain.nft, chain.abi.nft.encodeFunctionData('balanceOf', [h.address.hash]))), 'ERC-721: the number of ids')
  }
  const multiHolders = (await get(`/api/v2/tokens/${chain.multi}/holders`)).json()
  checkSpec(t, spec, multiHolders)
  t.equal(multiHolders.items.length, 5, 'ERC-1155: one row per holder and id')
  for (const h of multiHolders.items as Holder[]) {
    t.equal(BigInt(h.value), BigInt(await call(chain.multi, chain.abi.multi.encodeFunctionData('balanceOf', [h.token_id, h.address.hash]))), `id ${h.token_id}`)
  }
})

t.test('GET /api/v2/tokens/{hash}/counters counts holders and transfer logs', async (t) => {
  const transferTopics = ['Transfer(address,address,uint256)', 'TransferSingle(address,address,address,uint256,uint256)',
    'TransferBatch(address,address,address,uint256[],uint256[])'].map((s) => topicOf(s))
  for (const address of [token0, chain.nft, chain.multi]) {
    const body = (await get(`/api/v2/tokens/${address}/counters`)).json()
    checkSpec(t, '/v2/tokens/{address_hash_param}/counters', body)
    const logs = await rpc.call<Array<{ topics: string[] }>>('eth_getLogs', [{ address, fromBlock: '0x0', toBlock: 'latest' }])
    t.equal(body.transfers_count, String(logs.filter((l) => transferTopics.includes(l.topics[0]!)).length), `${address} transfers (an ERC-1155 batch is one)`)
    t.equal(body.token_holders_count, (await get(`/api/v2/tokens/${address}`)).json().holders_count)
  }
  t.equal((await get(`/api/v2/tokens/${Wallet.createRandom().address}/counters`)).statusCode, 404)
})

type Instance = { id: string, owner: { hash: string } | null, is_unique: boolean, token: { address_hash: string }, metadata: null }

t.test('GET /api/v2/tokens/{hash}/instances walks every NFT id with its owner from ownerOf', async (t) => {
  const spec = '/v2/tokens/{address_hash_param}/instances'
  const { items, pages } = await walkList<Instance>(t, app, `/api/v2/tokens/${chain.nft}/instances`, spec)
  t.same(Object.keys(pages[0]!.next_page_params!), ['unique_token'])
  t.same(items.map((i) => i.id), Array.from({ length: NFT_COUNT }, (_, i) => String(NFT_COUNT - i)), 'every id, highest first')
  for (const i of items) {
    const owner = chain.abi.nft.decodeFunctionResult('ownerOf', await call(chain.nft, chain.abi.nft.encodeFunctionData('ownerOf', [i.id])))[0] as string
    t.equal(i.owner?.hash, owner, `id ${i.id} owner${owner === ZERO ? ' (burnt)' : ''}`)
  }
  t.match(items[0], { metadata: null, is_unique: true, token: { address_hash: getAddress(chain.nft) }, image_url: null, thumbnails: null })
  const held = await walkList<Instance>(t, app, `/api/v2/tokens/${chain.nft}/instances`, spec, { holder_address_hash: holder0.address })
  t.same(held.items.map((i) => i.id), Array.from({ length: 26 }, (_, i) => String(54 - 2 * i)), 'the holder\'s ids: even ones 54..4 (2 was sent on)')
  t.ok(held.items.every((i) => i.owner?.hash === holder0.address))

  const multi = (await get(`/api/v2/tokens/${chain.multi}/instances`)).json()
  checkSpec(t, spec, multi)
  t.same(multi.items.map((i: Instance) => [i.id, i.is_unique, i.owner?.hash ?? null]),
    [['9', true, chain.deployer.address], ['8', false, null], ['7', false, null]], 'ERC-1155: an owner only for an id with one unit')
  t.same((await get(`/api/v2/tokens/${token0}/instances`)).json(), { items: [], next_page_params: null }, 'an ERC-20 has no instances')
})

t.test('GET /api/v2/tokens/{hash}/instances/{id} answers one instance or 404', async (t) => {
  const spec = '/v2/tokens/{address_hash_param}/instances/{token_id_param}'
  const moved = (await get(`/api/v2/tokens/${chain.nft}/instances/2`)).json()
  checkSpec(t, spec, moved)
  t.match(moved, { id: '2', owner: { hash: holder3.address }, is_unique: true, metadata: null, token: { type: 'ERC-721' } })
  t.match((await get(`/api/v2/tokens/${chain.nft}/instances/3`)).json(), { owner: { hash: ZERO } }, 'a burnt id: the zero address, as Blockscout records burns')
  for (const path of [`${chain.nft}/instances/999`, `${chain.nft}/instances/-1`, `${chain.nft}/instances/${'9'.repeat(100)}`,
    `${token0}/instances/1`, `${Wallet.createRandom().address}/instances/1`]) {
    const response = await get(`/api/v2/tokens/${path}`)
    t.equal(response.statusCode, 404, path)
    t.same(response.json(), { message: 'Not found' })
  }
  t.equal((await get(`/api/v2/tokens/${chain.nft}/instances/abc`)).statusCode, 422)
})

type Transfer = { transaction_hash: string, from: { hash: string }, to: { hash: string }, block_number: number, log_index: number, total: { token_id: string, value?: string } }

t.test('GET /api/v2/tokens/{hash}/instances/{id}/transfers, /transfers-count and /holders: one id\'s history and owners', async (t) => {
  const base = '/v2/tokens/{address_hash_param}/instances/{token_id_param}'
  const transfersOf = async (token: string, id: string) => {
    const body = (await get(`/api/v2/tokens/${token}/instances/${id}/transfers`)).json()
    checkSpec(t, `${base}/transfers`, body)
    return body as { items: Transfer[], next_page_params: unknown }
  }
  // NFT 2: minted to holder 0, sent on to holder 3. The node's logs say the same.
  const moved = await transfersOf(chain.nft, '2')
  t.same(moved.items.map((x) => [x.from.hash, x.to.hash, x.total.token_id]), [[holder0.address, holder3.address, '2'], [ZERO, holder0.address, '2']], 'newest first')
  const logs = await rpc.call<Array<{ transactionHash: string }>>('eth_getLogs', [{
    address: chain.nft,
    fromBlock: '0x0',
    toBlock: 'latest',
    topics: [topicOf('Transfer(address,address,uint256)'), null, null, '0x' + (2).toString(16).padStart(64, '0')]
  }])
  t.same(moved.items.map((x) => x.transaction_hash).sort(), logs.map((l) => l.transactionHash).sort(), 'the transactions of the node\'s Transfer logs for id 2')
  t.equal(moved.next_page_params, null)
  // ERC-1155 id 7: minted (50 to the deployer), 20 to holder 0, 10 to holder 1 in a batch.
  const multi = await transfersOf(chain.multi, '7')
  t.same(multi.items.map((x) => [x.from.hash, x.to.hash, x.total.value]), [
    [chain.deployer.address, chain.holders[1]!.address, '10'], [chain.deployer.address, holder0.address, '20'], [ZERO, chain.deployer.address, '50']])
  for (const [token, id, count] of [[chain.nft, '2', 2], [chain.nft, '3', 2], [chain.multi, '7', 3], [chain.multi, '8', 2], [chain.nft, '999', 0], [chain.nft, '-1', 0]] as const) {
    const body = (await get(`/api/v2/tokens/${token}/instances/${id}/transfers-count`)).json()
    checkSpec(t, `${base}/transfers-count`, body)
    t.same(body, { transfers_count: count }, `${token === chain.nft ? 'NFT' : 'ERC-1155'} id ${id}: ${count} transfers`)
  }

  const holders = (await get(`/api/v2/tokens/${chain.multi}/instances/7/holders`)).json()
  checkSpec(t, `${base}/holders`, holders)
  const balanceOf = async (holder: string) => BigInt(await call(chain.multi, chain.abi.multi.encodeFunctionData('balanceOf', [7n, holder]))).toString()
  t.equal(holders.items.length, 3)
  for (const h of holders.items as Holder[]) t.equal(h.value, await balanceOf(h.address.hash), `${h.address.hash}: balanceOf`)
  t.ok(holders.items.every((h: Holder, i: number) => i === 0 || BigInt(holders.items[i - 1].value) >= BigInt(h.value)), 'most units first')
  t.ok(holders.items.every((h: Holder) => h.token_id === '7'))
  const first = holders.items[0] as Holder
  const rest = (await get(`/api/v2/tokens/${chain.multi}/instances/7/holders?address_hash=${first.address.hash.toLowerCase()}&value=${first.value}&token_id=7&items_count=50`)).json()
  t.same(rest.items, holders.items.slice(1), 'a cursor reads on after its holder')
  t.same((await get(`/api/v2/tokens/${chain.nft}/instances/2/holders`)).json().items.map((h: Holder) => [h.address.hash, h.value]), [[holder3.address, '1']], 'an NFT id: its one owner')
  t.same((await get(`/api/v2/tokens/${chain.nft}/instances/3/holders`)).json(), { items: [], next_page_params: null }, 'a burnt id has no holder')

  for (const path of [`${token0}/instances/1/transfers`, `${token0}/instances/1/holders`, `${token0}/instances/1/transfers-count`,
    `${Wallet.createRandom().address}/instances/1/transfers`]) {
    const response = await get(`/api/v2/tokens/${path}`)
    t.equal(response.statusCode, 404, `${path}: no NFT token there`)
  }
  for (const path of [`${chain.nft}/instances/${'9'.repeat(100)}/transfers`, `${chain.nft}/instances/-5/holders`]) {
    t.same((await get(`/api/v2/tokens/${path}`)).json(), { items: [], next_page_params: null }, `${path}: an id no token can have`)
  }
  t.equal((await get(`/api/v2/tokens/${chain.nft}/instances/2/transfers?block_number=x`)).statusCode, 422)
  t.equal((await get(`/api/v2/tokens/${chain.nft}/instances/2/holders?value=abc`)).statusCode, 422)
})

t.test('GET /api/v2/smart-contracts/{hash} answers as for an unverified contract, code from the index', async (t) => {
  const spec = '/v2/smart-contracts/{address_hash_param}'
  const deployed = (await get(`/api/v2/smart-contracts/${token0}`)).json()
  checkSpec(t, spec, deployed)
  const creation = await rpc.call<{ input: string }>('eth_getTransactionByHash', [chain.deployments.get(token0)])
  t.same(deployed, {
    proxy_type: null,
    implementations: [],
    conflicting_implementations: null,
    deployed_bytecode: await rpc.call<string>('eth_getCode', [token0, 'latest']),
    creation_bytecode: creation.input,
    creation_status: 'success'
  })
  // Child was created by Caller.spawn(): its creation code is the CREATE frame's input.
  const trace = await rpc.call<{ calls: Array<{ type: string, to: string, input: string }> }>('debug_traceTransaction', [chain.callerTransactions[1], { tracer: 'callTracer' }])
  const frame = trace.calls.find((c) => c.type === 'CREATE')!
  t.equal(frame.to.toLowerCase(), chain.child.toLowerCase())
  const child = (await get(`/api/v2/smart-contracts/${chain.child}`)).json()
  checkSpec(t, spec, child)
  t.match(child, { deployed_bytecode: await rpc.call<string>('eth_getCode', [chain.child, 'latest']), creation_bytecode: frame.input })
  for (const address of [holder0.address, Wallet.createRandom().address]) {
    const response = await get(`/api/v2/smart-contracts/${address}`)
    t.equal(response.statusCode, 404, 'no code, no contract')
    t.same(response.json(), { message: 'Not found' })
  }
  t.equal((await get('/api/v2/smart-contracts/0x1234')).statusCode, 422)
})

t.test('GET /api/v2/smart-contracts lists verified contracts (none) and counts contracts', async (t) => {
  for (const query of ['', '/', '?filter=solidity', '?q=Token&sort=balance&order=desc']) {
    const body = (await get(`/api/v2/smart-contracts${query}`)).json()
    checkSpec(t, '/v2/smart-contracts/', body)
    t.same(body, { items: [], next_page_params: null }, `nothing is verified yet ${query}`)
  }
  const contracts = [...chain.deployments.keys(), chain.child, chain.logger]
  const codes = await Promise.all(contracts.map(async (a) => await rpc.call<string>('eth_getCode', [a, 'latest'])))
  const withCode = String(codes.filter((c) => c !== '0x').length)
  const counters = (await get('/api/v2/smart-contracts/counters')).json()
  checkSpec(t, '/v2/smart-contracts/counters', counters)
  t.same(counters, { smart_contracts: withCode, new_smart_contracts_24h: withCode, verified_smart_contracts: '0', new_verified_smart_contracts_24h: '0' })
})

t.test('GET /api/v2/smart-contracts/verification/config offers the verification methods, with Blockscout\'s licence ids', async (t) => {
  const response = await get('/api/v2/smart-contracts/verification/config')
  t.equal(response.statusCode, 200)
  const config = response.json()
  t.same(config.verification_options, ['flattened-code', 'standard-input', 'multi-part'], 'the methods served (test/plugins/rest/smart-contracts-verify.test.ts)')
  t.match(config.solidity_compiler_versions[0], /^v0\.8\.\d+\+commit\.[0-9a-f]{8}$/, 'the bundled compiler first')
  t.equal(config.is_rust_verifier_microservice_enabled, false)
  t.same(Object.entries(config.license_types), [['none', 1], ['unlicense', 2], ['mit', 3], ['gnu_gpl_v2', 4], ['gnu_gpl_v3', 5], ['gnu_lgpl_v2_1', 6],
    ['gnu_lgpl_v3', 7], ['bsd_2_clause', 8], ['bsd_3_clause', 9], ['mpl_2_0', 10], ['osl_3_0', 11], ['apache_2_0', 12], ['gnu_agpl_v3', 13], ['bsl_1_1', 14]])
  t.same(Object.keys(config).sort(), ['is_rust_verifier_microservice_enabled', 'license_types', 'solidity_compiler_versions', 'solidity_evm_versions',
    'verification_options', 'vyper_compiler_versions', 'vyper_evm_versions'], 'every member of Blockscout\'s answer')
  t.equal((await get('/api/v2/smart-contracts/verification/config?x=1')).statusCode, 422, 'unknown parameters answer 422 as elsewhere')
})

t.test('bad token and contract input answers 422, never 500', async (t) => {
  for (const path of [
    '/api/v2/tokens?type=ERC-99', '/api/v2/tokens?holders_count=abc&contract_address_hash=' + token0, '/api/v2/tokens?contract_address_hash=0x12',
    '/api/v2/tokens?is_name_null=maybe', '/api/v2/tokens?foo=1', '/api/v2/tokens?items_count=0', '/api/v2/tokens?sort=name',
    '/api/v2/tokens/0x12', '/api/v2/tokens/0x12/counters', `/api/v2/tokens/${token0}/holders?value=-x`,
    `/api/v2/tokens/${token0}/holders?address_hash=bad&value=1`, `/api/v2/tokens/${token0}/holders?page=2`,
    `/api/v2/tokens/${chain.nft}/instances?unique_token=abc`, `/api/v2/tokens/${chain.nft}/instances?holder_address_hash=0x1`,
    '/api/v2/smart-contracts?filter=cobol', '/api/v2/smart-contracts?smart_contract_id=x', '/api/v2/smart-contracts/counters?x=1'
  ]) {
    const response = await get(path)
    t.equal(response.statusCode, 422, path)
    t.match(response.json(), { errors: [{ title: 'Invalid value', source: { pointer: String }, detail: String }] }, path)
  }
  // A tampered but well-formed cursor is only a different place to start.
  const far = (await get(`/api/v2/tokens/${token0}/holders?address_hash=${ZERO}&value=0&items_count=50`)).json()
  t.same(far, { items: [], next_page_params: null })
  const lowest = (await get(`/api/v2/tokens?holders_count=0&contract_address_hash=${ZERO}&is_name_null=true&name=`)).json()
  t.same(lowest, { items: [], next_page_params: null })
  const above = await get(`/api/v2/tokens?holders_count=${'9'.repeat(40)}&contract_address_hash=${ZERO}&is_name_null=false&name=`)
  t.equal(above.statusCode, 200, 'a cursor above every holder count')
  t.equal(above.json().items.length, 50)
})

t.test('holdings follow the chain back through a reorg (token_holdings stays the sum of token_balances)', async (t) => {
  const db = app.db.knex
  const sameAsBalances = async (when: string) => {
    const { rows } = await db.raw(`
      select count(*)::int as n from (
        (select token_address, holder, case when k.type = 'ERC-721' then -1 else b.token_id end as token_id, sum(b.value) as value
          from token_balances b join tokens k on k.address = b.token_address group by 1, 2, 3 having sum(b.value) <> 0
         except select token_address, holder, token_id, value from token_holdings)
        union all
        (select token_address, holder, token_id, value from token_holdings
         except select token_address, holder, case when k.type = 'ERC-721' then -1 else b.token_id end, sum(b.value)
          from token_balances b join tokens k on k.address = b.token_address group by 1, 2, 3 having sum(b.value) <> 0)
      ) d`)
    t.equal(rows[0].n, 0, `token_holdings is token_balances per Blockscout holding ${when}`)
  }
  await sameAsBalances('before the reorg')
  const receipt = await rpc.call<{ blockNumber: string }>('eth_getTransactionReceipt', [chain.revertedTransaction])
  // Back to before the block with the burn, the ERC-1155 transfers and the Caller's calls.
  await rpc.call('debug_setHead', ['0x' + (Number(receipt.blockNumber) - 1).toString(16)])
  await waitForIndexed(app, INDEXED_TIMEOUT_MS)
  await sameAsBalances('after the reorg')
  const holdings = (await get(`/api/v2/addresses/${holder0.address}/token-balances`)).json() as Array<{ token: { address_hash: string, type: string }, value: string }>
  for (const h of holdings) {
    t.equal(BigInt(h.value), BigInt(await call(h.token.address_hash, chain.abi.token.encodeFunctionData('balanceOf', [holder0.address]))), `${h.token.type} after the reorg`)
  }
  t.notOk(holdings.some((h) => h.token.type === 'ERC-1155'), 'the ERC-1155 transfer to the holder is gone')
  const multi = (await get(`/api/v2/tokens/${chain.multi}/holders`)).json() as { items: Holder[] }
  t.same(multi.items.map((h) => [h.address.hash, h.token_id, h.value]), [[chain.deployer.address, '7', '50'], [chain.deployer.address, '8', '5'], [chain.deployer.address, '9', '1']])
  t.match((await get(`/api/v2/tokens/${chain.nft}/instances/3`)).json(), { owner: { hash: chain.deployer.address } }, 'the burn is undone')
})
