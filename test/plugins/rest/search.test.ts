// REST search on a real chain: blocks, transactions and addresses found by
// what names them, tokens by name or symbol, paged; values from the node,
// shapes from Blockscout's OpenAPI spec.
import t from 'tap'
import { Contract, ContractFactory, JsonRpcProvider, Wallet, getAddress } from 'ethers'
import { build } from '../../helper.ts'
import { writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { waitForReceipt } from '../../support/chain.ts'
import { compileContract, TEST_TOKEN_SOURCE } from '../../support/contracts.ts'
import { OPENAPI_SPEC_PRESENT, checkSpec } from '../../support/openapi.ts'
import { CHAIN_ID } from '../../../core/config.ts'

// More tokens named alike than fit on one page, so the search pages.
const WALK_TOKENS = 55

const { wallets, allocFile } = await writeFundedAlloc(t, 2)
const { app, url } = await build(t, { GENESIS_ALLOC: allocFile })
const provider = new JsonRpcProvider(`${url}/rpc`, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())
const deployer = wallets[0]!.connect(provider)
const compiled = await compileContract(TEST_TOKEN_SOURCE, 'TestToken')
const factory = new ContractFactory(compiled.abi as never, compiled.bytecode, deployer)
const token = await factory.deploy('Rest Search', 'RSRCH', 10n ** 21n) as Contract
const creation = await waitForReceipt(provider, token.deploymentTransaction()!.hash)
const tokenAddress = await token.getAddress()

// The walk tokens in as few blocks as the gas limit allows: signed with consecutive nonces, sent together.
let nonce = await provider.getTransactionCount(deployer.address, 'pending')
const walkHashes: string[] = []
for (let i = 0; i < WALK_TOKENS; i++) {
  const tx = await factory.getDeployTransaction(`Walk ${String(i).padStart(2, '0')}`, `WLK${i}`, 1000n)
  const signed = await deployer.signTransaction({ ...tx, nonce: nonce++, gasLimit: 1_500_000n, chainId: CHAIN_ID, type: 2, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n })
  walkHashes.push(await provider.send('eth_sendRawTransaction', [signed]))
}
const walkReceipts = await Promise.all(walkHashes.map(async (h) => await waitForReceipt(provider, h, 60_000)))
const walkAddresses = walkReceipts.map((r) => r.contractAddress!)
// One walk token gains a second holder: it leads the list (most held first).
const popular = new Contract(walkAddresses[7]!, compiled.abi as never, deployer)
const popularTransfer = await waitForReceipt(provider, (await popular.getFunction('transfer')(Wallet.createRandom().address, 1n)).hash)
const head = await waitForIndexed(app, 60_000)
const rpc = app.geth.rpc
const get = async (path: string) => await app.inject({ method: 'GET', url: path })
if (!OPENAPI_SPEC_PRESENT) t.comment('../shared/api is absent: responses are not checked against Blockscout\'s OpenAPI spec')

type RpcBlock = { hash: string, number: string, timestamp: string }
const isoOf = (seconds: string) => new Date(Number(seconds) * 1000).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z')

t.test('a block number or block hash finds the block', async (t) => {
  const block = await rpc.call<RpcBlock>('eth_getBlockByNumber', ['0x' + creation.blockNumber.toString(16), false])
  const expected = { type: 'block', block_number: creation.blockNumber, block_hash: block.hash, url: `/block/${block.hash}`, timestamp: isoOf(block.timestamp), block_type: 'block' }
  const byNumber = (await get(`/api/v2/search?q=${creation.blockNumber}`)).json()
  checkSpec(t, '/v2/search', byNumber)
  t.match(byNumber.items[0], expected)
  t.equal(byNumber.next_page_params, null)
  const byHash = (await get(`/api/v2/search?q=${block.hash.toUpperCase().replace('0X', '0x')}`)).json()
  t.same(byHash.items.map((i: { type: string }) => i.type), ['block'], 'a block hash in any case')
  t.match(byHash.items[0], expected)
  t.same((await get(`/api/v2/search?q=${head + 1000}`)).json(), { items: [], next_page_params: null }, 'a block not yet sealed')
})

t.test('a transaction hash finds the transaction', async (t) => {
  const block = await rpc.call<RpcBlock>('eth_getBlockByNumber', ['0x' + popularTransfer.blockNumber.toString(16), false])
  const body = (await get(`/api/v2/search?q=${popularTransfer.hash}`)).json()
  checkSpec(t, '/v2/search', body)
  t.same(body.items, [{ type: 'transaction', priority: 3, transaction_hash: popularTransfer.hash, url: `/tx/${popularTransfer.hash}`, timestamp: isoOf(block.timestamp) }])
  t.same((await get(`/api/v2/search?q=0x${'ab'.repeat(32)}`)).json().items, [], 'an unknown hash')
})

t.test('an address finds the address, with whether it is a contract', async (t) => {
  const account = (await get(`/api/v2/search?q=${deployer.address.toLowerCase()}`)).json()
  checkSpec(t, '/v2/search', account)
  t.match(account.items, [{ type: 'address', address_hash: deployer.address, url: `/address/${deployer.address}`, is_smart_contract_address: false }])
  const contract = (await get(`/api/v2/search?q=${tokenAddress}`)).json()
  t.equal(await provider.getCode(tokenAddress) !== '0x', true)
  t.match(contract.items, [
    { type: 'token', address_hash: tokenAddress, name: 'Rest Search', symbol: 'RSRCH', token_type: 'ERC-20', priority: 3 },
    { type: 'address', address_hash: tokenAddress, is_smart_contract_address: true }
  ], 'a token\'s address finds the token and the address')
  t.equal(contract.items.length, 2)
  t.same((await get(`/api/v2/search?q=${Wallet.createRandom().address}`)).json().items, [], 'an address the chain never saw')
})

t.test('a token name or symbol finds the token, in any case', async (t) => {
  const expected = {
    type: 'token',
    name: await token.getFunction('name')(),
    symbol: await token.getFunction('symbol')(),
    address_hash: tokenAddress,
    token_url: `/token/${tokenAddress}`,
    address_url: `/address/${tokenAddress}`,
    token_type: 'ERC-20',
    total_supply: (await token.getFunction('totalSupply')()).toString(),
    is_smart_contract_address: true
  }
  for (const q of ['rest sea', 'REST SEARCH', 'rsrch']) {
    const body = (await get(`/api/v2/search?q=${encodeURIComponent(q)}`)).json()
    checkSpec(t, '/v2/search', body)
    t.same(body.items.length, 1, q)
    t.match(body.items[0], expected, q)
  }
  t.equal((await get('/api/v2/search?q=rsrch')).json().items[0].priority, 2, 'an exact symbol ranks higher')
  t.equal((await get('/api/v2/search?q=rsr')).json().items[0].priority, 0)
  t.same((await get('/api/v2/search?q=%25')).json().items, [], '% is matched literally, not as a wildcard')
  t.same((await get('/api/v2/search?q=nothing-like-this')).json(), { items: [], next_page_params: null })
})

t.test('a search with more than a page of tokens walks to its end through next_page_params', async (t) => {
  const seen: string[] = []
  let query = 'q=walk'
  let pages = 0
  for (;;) {
    const body = (await get(`/api/v2/search?${query}`)).json()
    checkSpec(t, '/v2/search', body)
    pages++
    seen.push(...body.items.map((i: { address_hash: string }) => i.address_hash))
    if (body.next_page_params === null) break
    t.equal(body.items.length, 50)
    t.same(Object.keys(body.next_page_params).sort(), ['next_page_params_type', 'q', 'token[address_hash]', 'token[holder_count]', 'token[name]'])
    t.match(body.next_page_params, { next_page_params_type: 'search', q: 'walk', 'token[holder_count]': '1' })
    query = new URLSearchParams(body.next_page_params).toString()
  }
  t.equal(pages, 2)
  t.equal(seen[0], getAddress(walkAddresses[7]!), 'the token with two holders first')
  t.equal(new Set(seen).size, seen.length, 'no token twice')
  t.same([...seen].sort(), walkAddresses.map((a) => getAddress(a)).sort(), 'every walk token once')
  const rest = seen.slice(1)
  t.same(rest, [...rest].sort((a, b) => a.toLowerCase() < b.toLowerCase() ? -1 : 1), 'ties in address order')
})

t.test('GET /api/v2/search/quick answers a bare array of at most 50', async (t) => {
  const body = (await get('/api/v2/search/quick?q=walk')).json()
  checkSpec(t, '/v2/search/quick', body)
  t.equal(body.length, 50)
  t.equal(body[0].address_hash, getAddress(walkAddresses[7]!))
  t.same((await get('/api/v2/search/quick?q=wa')).json(), [], 'shorter than 3 characters')
  const tx = (await get(`/api/v2/search/quick?q=${creation.hash}`)).json()
  t.match(tx, [{ type: 'transaction', transaction_hash: creation.hash }])
})

t.test('GET /api/v2/search/check-redirect names the page to go to', async (t) => {
  const redirect = async (q: string) => {
    const body = (await get(`/api/v2/search/check-redirect?q=${q}`)).json()
    checkSpec(t, '/v2/search/check-redirect', body)
    return body
  }
  const unknown = Wallet.createRandom().address
  t.same(await redirect(unknown.toLowerCase()), { redirect: true, type: 'address', parameter: unknown }, 'any address, known or not, checksummed')
  const block = await rpc.call<RpcBlock>('eth_getBlockByNumber', ['0x' + creation.blockNumber.toString(16), false])
  t.same(await redirect(String(creation.blockNumber)), { redirect: true, type: 'block', parameter: block.hash })
  t.same(await redirect(block.hash), { redirect: true, type: 'block', parameter: block.hash })
  t.same(await redirect(creation.hash), { redirect: true, type: 'transaction', parameter: creation.hash })
  const none = { redirect: false, type: null, parameter: null }
  t.same(await redirect(String(head + 1000)), none, 'a block not yet sealed')
  t.same(await redirect(`0x${'ab'.repeat(32)}`), none)
  t.same(await redirect('walk'), none, 'a name is a search, not a page')
  t.same(await redirect('99999999999999999999999'), none, 'a number past any block')
})

// Verified contracts, stored as a verification stores them (only the columns search reads matter).
async function storeVerified (address: string, name: string): Promise<void> {
  await app.db.knex('verified_contracts').insert({
    address: Buffer.from(address.slice(2), 'hex'),
    name,
    compiler_version: 'v0.8.24+commit.e11b9ed9',
    compiler_settings: {},
    source_files: {},
    file_path: 'Probe.sol',
    abi: JSON.stringify([]),
    match_type: 'full',
    optimization: false,
    verification_method: 'flattened-code',
    runtime_code_hash: Buffer.alloc(32)
  })
}

t.test('a word of a token\'s name finds it, as /api/v2/tokens?q= does; a verified contract\'s name finds it as a contract result', async (t) => {
  const listed = (await get('/api/v2/tokens?q=search')).json()
  t.match(listed.items, [{ address_hash: tokenAddress }], 'the tokens list finds "Rest Search" by its second word')
  for (const q of ['search', 'Search', 'rest search', 'sea']) {
    const body = (await get(`/api/v2/search?q=${encodeURIComponent(q)}`)).json()
    checkSpec(t, '/v2/search', body)
    t.match(body.items, [{ type: 'token', address_hash: tokenAddress, name: 'Rest Search' }], q)
  }
  await storeVerified(walkAddresses[3]!, 'VerifiedProbeVault')
  await storeVerified(tokenAddress, 'RestSearchToken')
  const contract = {
    type: 'contract',
    priority: 0,
    name: 'VerifiedProbeVault',
    address_hash: getAddress(walkAddresses[3]!),
    url: `/address/${getAddress(walkAddresses[3]!)}`,
    is_smart_contract_verified: true,
    is_smart_contract_address: true,
    ens_info: null,
    certified: false,
    reputation: 'ok'
  }
  for (const q of ['VerifiedProbeVault', 'verifiedprobe', 'verif']) {
    const body = (await get(`/api/v2/search?q=${q}`)).json()
    checkSpec(t, '/v2/search', body)
    t.same(body.items, [contract], q)
    t.same((await get(`/api/v2/search/quick?q=${q}`)).json(), [contract], `quick: ${q}`)
  }
  const token = (await get('/api/v2/search?q=rsrch')).json().items
  t.match(token, [{ type: 'token', address_hash: tokenAddress, is_smart_contract_verified: true }], 'a token whose contract is verified says so')
  const both = (await get('/api/v2/search?q=restsearchtoken')).json().items
  t.match(both, [{ type: 'contract', name: 'RestSearchToken', address_hash: tokenAddress }])
  const address = (await get(`/api/v2/search?q=${walkAddresses[3]!.toLowerCase()}`)).json().items
  t.match(address.find((i: { type: string }) => i.type === 'address'), { name: 'VerifiedProbeVault', is_smart_contract_verified: true }, 'an address found by hash names its verified contract')
  const walk = (await get('/api/v2/search?q=walk')).json()
  t.equal(walk.items.length, 50, 'contracts take no room where none matches')
})

t.test('bad input answers 422 in Blockscout\'s shape, never 500', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ['/api/v2/search', '/q', /^Missing field: q$/],
    ['/api/v2/search/quick', '/q', /^Missing field: q$/],
    ['/api/v2/search/check-redirect', '/q', /^Missing field: q$/],
    ['/api/v2/search?q=walk&sort=name', '/sort', /^Unexpected field: sort$/],
    [`/api/v2/search?q=${'a'.repeat(257)}`, '/q', /./],
    ['/api/v2/search?q=walk&token[holder_count]=-1&token[address_hash]=0x' + '00'.repeat(20), '/token[holder_count]', /smaller than inclusive minimum 0/],
    ['/api/v2/search?q=walk&token[holder_count]=x&token[address_hash]=0x' + '00'.repeat(20), '/token[holder_count]', /^Invalid integer/],
    ['/api/v2/search?q=walk&token[holder_count]=1&token[address_hash]=0x12', '/token[address_hash]', /^Invalid format/],
    ['/api/v2/search?q=walk&token[holder_count]=1', '/token[address_hash]', /^Missing field: token\[address_hash\]$/],
    ['/api/v2/search?q=walk&next_page_params_type=other', '/next_page_params_type', /enum/]
  ]
  for (const [path, pointer, detail] of cases) {
    const response = await get(path)
    t.equal(response.statusCode, 422, path)
    t.equal(response.json().errors[0].source.pointer, pointer, path)
    t.match(response.json().errors[0].detail, detail, path)
  }
  for (const q of ['', '%20', '0x', '-1', '1e9', '0x' + 'g'.repeat(40), '%27%3B%20drop%20table%20blocks%3B--']) {
    for (const path of ['/api/v2/search', '/api/v2/search/quick', '/api/v2/search/check-redirect']) {
      t.equal((await get(`${path}?q=${q}`)).statusCode, 200, `${path}?q=${q}`)
    }
  }
})
