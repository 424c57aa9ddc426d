// Contract verification through Blockscout's routes on a real chain: an
// ERC-20 with constructor arguments and immutables by standard JSON input
// (multipart, as Blockscout's front end sends it) and by flattened code, a
// library-linking contract by multi-part sources, an EIP-1967 proxy and
// EIP-1167 clone, a factory's children (bytecode twins), and every way a
// verification can fail, storing nothing.
import t from 'tap'
import WebSocket from 'ws'
import { Socket } from 'phoenix'
import { AbiCoder, getAddress } from 'ethers'
import { build } from '../../helper.ts'
import { writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { responseValidator } from '../../support/openapi.ts'
import { BUNDLED_VERSION, compileStandard, createSender, deployProxies, readFixture, standardInput } from '../../support/verify.ts'
import { findVerifiedContract } from '../../../core/verify/index.ts'

const { wallets, allocFile } = await writeFundedAlloc(t, 1)
const { app, url } = await build(t, { GENESIS_ALLOC: allocFile })
const db = app.db.knex
const sender = createSender(app.geth.rpc, wallets[0]!)
const get = async (path: string) => await app.inject({ method: 'GET', url: path })
const detailSpec = responseValidator('/v2/smart-contracts/{address_hash_param}')

const tokenSource = await readFixture('VerifiedToken.sol')
const tokenInput = standardInput({ 'contracts/VerifiedToken.sol': tokenSource })
const token = compileStandard(tokenInput, 'contracts/VerifiedToken.sol', 'VerifiedToken')
const tokenArgs = (name: string, supply: bigint) => AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint256', 'uint256'], [name, 'VT', supply, supply * 2n]).slice(2)
const tokenA = await sender.deploy(token.bytecode + tokenArgs('Token A', 1000n))
const tokenB = await sender.deploy(token.bytecode + tokenArgs('Token B', 7n))
const tokenC = await sender.deploy(token.bytecode + tokenArgs('Token C', 9n))

// A library and a contract linked to it (its placeholder replaced by the library's address).
const linkedSource = await readFixture('Linked.sol')
const linkedInput = standardInput({ 'Linked.sol': linkedSource })
const library = await sender.deploy(compileStandard(linkedInput, 'Linked.sol', 'Scale').bytecode)
const scaled = await sender.deploy(compileStandard(linkedInput, 'Linked.sol', 'ScaledCounter').bytecode.replace(/__\$[0-9a-f]{34}\$__/g, library.address.slice(2)))

// An implementation, an EIP-1967 proxy to it, a factory's children (same code) and an EIP-1167 clone of it.
const { source: proxiesSource, input: proxiesInput, counterCode, counter, proxy, factory, child1, child2, clone } = await deployProxies(sender)
// increment() is in no signature table: only Counter's verified ABI decodes it, through the proxy too.
const incrementInput = counterCode.abi.encodeFunctionData('increment')
const [incrementDirect, incrementViaProxy] = [await sender.send(counter.address, incrementInput), await sender.send(proxy.address, incrementInput)]
await waitForIndexed(app)

/** A multipart form as Blockscout's front end sends it (fetch over the real socket). */
async function postForm (path: string, fields: Record<string, string>, files: Record<string, string> = {}) {
  const form = new FormData()
  for (const [key, value] of Object.entries(fields)) form.append(key, value)
  Object.entries(files).forEach(([name, content], i) => form.append(`files[${i}]`, new Blob([content]), name))
  const response = await fetch(url + path, { method: 'POST', body: form })
  return { status: response.status, json: await response.json() as any }
}
const postJson = async (path: string, body: object) => {
  const response = await app.inject({ method: 'POST', url: path, payload: body })
  return { status: response.statusCode, json: response.json() }
}
const via = (address: string, method: string) => `/api/v2/smart-contracts/${address}/verification/via/${method}`

t.test('verification/config offers the bundled compiler, evm versions and the methods served', async (t) => {
  const config = (await get('/api/v2/smart-contracts/verification/config')).json()
  t.equal(config.solidity_compiler_versions[0], BUNDLED_VERSION)
  t.match(BUNDLED_VERSION, /^v0\.8\.\d+\+commit\.[0-9a-f]{8}$/)
  t.ok(config.solidity_evm_versions.includes('paris'))
  t.same(config.verification_options.sort(), ['flattened-code', 'multi-part', 'standard-input'])
  t.equal(config.license_types.mit, 3)
})

t.test('standard-input (multipart) verifies a token: detail, address, list, counters and findVerifiedContract show it', async (t) => {
  const answer = await postForm(via(tokenA.address, 'standard-input'), {
    compiler_version: BUNDLED_VERSION, contract_name: 'VerifiedToken', autodetect_constructor_args: 'true', license_type: 'mit'
  }, { 'input.json': JSON.stringify(tokenInput) })
  t.same(answer, { status: 200, json: { message: 'Smart-contract verification started' } })

  const detail = (await get(`/api/v2/smart-contracts/${tokenA.address}`)).json()
  t.equal(detailSpec?.(detail), undefined, 'matches Blockscout\'s SmartContract schema')
  t.match(detail, {
    is_verified: true,
    is_fully_verified: true,
    is_partially_verified: false,
    verified_twin_address_hash: null,
    name: 'VerifiedToken',
    compiler_version: BUNDLED_VERSION,
    optimization_enabled: true,
    optimization_runs: 200,
    evm_version: 'paris',
    file_path: 'contracts/VerifiedToken.sol',
    source_code: tokenSource,
    additional_sources: [],
    language: 'solidity',
    license_type: 'mit',
    constructor_args: '0x' + tokenArgs('Token A', 1000n),
    has_constructor_args: true,
    external_libraries: [],
    proxy_type: null,
    implementations: []
  })
  t.same(detail.decoded_constructor_args.map(([value, input]: [unknown, { name: string }]) => [value, input.name]),
    [['Token A', 'name_'], ['VT', 'symbol_'], ['1000', 'supply'], ['2000', 'cap_']])
  t.equal(detail.abi.length, JSON.parse(token.abi.formatJson()).length, 'the whole ABI')
  t.ok(detail.abi.some((item: { name?: string }) => item.name === 'minter'))
  t.match(detail.compiler_settings, { evmVersion: 'paris', optimizer: { enabled: true, runs: 200 } })
  t.ok(!Number.isNaN(Date.parse(detail.verified_at)))

  const address = (await get(`/api/v2/addresses/${tokenA.address}`)).json()
  t.match(address, { is_verified: true, name: 'VerifiedToken', is_contract: true })

  const list = (await get('/api/v2/smart-contracts')).json()
  t.same(list.items.map((i: { address: { hash: string } }) => i.address.hash), [getAddress(tokenA.address)])
  t.match(list.items[0], { compiler_version: BUNDLED_VERSION, optimization_enabled: true, language: 'solidity', has_constructor_args: true, license_type: 'mit', address: { is_verified: true, name: 'VerifiedToken' } })
  t.equal((await get('/api/v2/smart-contracts?q=verifiedtok')).json().items.length, 1, 'q finds a part of the name')
  t.equal((await get(`/api/v2/smart-contracts?q=${tokenA.address.slice(0, 12)}`)).json().items.length, 1, 'q finds a part of the address')
  t.equal((await get('/api/v2/smart-contracts?q=nothing')).json().items.length, 0)
  t.equal((await get('/api/v2/smart-contracts?filter=vyper')).json().items.length, 0)
  t.match((await get('/api/v2/smart-contracts/counters')).json(), { verified_smart_contracts: '1', new_verified_smart_contracts_24h: '1' })

  const stored = await findVerifiedContract(db, tokenA.address)
  t.match(stored, { name: 'VerifiedToken', matchType: 'full', constructorArguments: '0x' + tokenArgs('Token A', 1000n), verificationMethod: 'standard-input' })
  t.equal(await findVerifiedContract(db, tokenB.address), null, 'another address with the same code is not stored')

  const again = await postForm(via(tokenA.address, 'standard-input'), { compiler_version: BUNDLED_VERSION }, { 'input.json': JSON.stringify(tokenInput) })
  t.same(again, { status: 200, json: { message: 'Already verified' } })
})

t.test('flattened-code (JSON body): a partial match (other comments, another path) is replaced by a full one (standard-input as JSON)', async (t) => {
  const flattened = {
    compiler_version: BUNDLED_VERSION,
    contract_name: 'VerifiedToken',
    is_optimization_enabled: true,
    optimization_runs: 200,
    evm_version: 'paris',
    autodetect_constructor_args: true
  }
  const partial = await postJson(via(tokenB.address, 'flattened-code'), { ...flattened, source_code: tokenSource + '\n// flattened by hand\n' })
  t.same(partial, { status: 200, json: { message: 'Smart-contract verification started' } })
  t.match((await get(`/api/v2/smart-contracts/${tokenB.address}`)).json(), { is_verified: true, is_partially_verified: true, is_fully_verified: false, file_path: 'VerifiedToken.sol' })
  t.match(await findVerifiedContract(db, tokenB.address), { matchType: 'partial', verificationMethod: 'flattened-code' })

  // The metadata hashes file paths too: only the deployer's own input (contracts/VerifiedToken.sol) matches fully.
  const samePartial = await postJson(via(tokenB.address, 'flattened-code'), { ...flattened, source_code: tokenSource })
  t.same(samePartial.json, { message: 'Smart-contract verification started' })
  t.match(await findVerifiedContract(db, tokenB.address), { matchType: 'partial' }, 'a partial replaces a partial')
  const full = await postJson(via(tokenB.address, 'standard-input'), { compiler_version: BUNDLED_VERSION, input: tokenInput })
  t.same(full, { status: 200, json: { message: 'Smart-contract verification started' } })
  const detail = (await get(`/api/v2/smart-contracts/${tokenB.address}`)).json()
  t.equal(detailSpec?.(detail), undefined, 'matches Blockscout\'s SmartContract schema')
  t.match(detail, { is_fully_verified: true, is_partially_verified: false, constructor_args: '0x' + tokenArgs('Token B', 7n) })
  t.equal(detail.decoded_constructor_args[2][0], '7')
})

t.test('failures answer a clear error and store nothing', async (t) => {
  const input = JSON.stringify(tokenInput)
  const wrongSource = JSON.stringify(standardInput({ 'contracts/VerifiedToken.sol': tokenSource.replace('"balance"', '"funds"') }))
  const cases: Array<[string, Promise<{ status: number, json: any }>, number, RegExp]> = [
    ['wrong source', postForm(via(tokenC.address, 'standard-input'), { compiler_version: BUNDLED_VERSION }, { 'input.json': wrongSource }), 400, /does not match/],
    ['a version not available', postForm(via(tokenC.address, 'standard-input'), { compiler_version: 'v0.8.19+commit.7dd6d404' }, { 'input.json': input }), 400, /v0\.8\.19\+commit\.7dd6d404 is not available/],
    ['a wrong commit of the version', postForm(via(tokenC.address, 'standard-input'), { compiler_version: 'v0.8.28+commit.00000000' }, { 'input.json': input }), 400, /not available/],
    ['wrong constructor args', postForm(via(tokenC.address, 'standard-input'), {
      compiler_version: BUNDLED_VERSION, autodetect_constructor_args: 'false', constructor_args: tokenArgs('Token X', 9n)
    }, { 'input.json': input }), 400, /constructor arguments given/],
    ['malformed standard JSON', postForm(via(tokenC.address, 'standard-input'), { compiler_version: BUNDLED_VERSION }, { 'input.json': '{"language": "Solidity", "sources":' }), 400, /not JSON/],
    ['standard JSON without sources', postForm(via(tokenC.address, 'standard-input'), { compiler_version: BUNDLED_VERSION }, { 'input.json': '{"language":"Solidity","sources":{}}' }), 400, /no sources/],
    ['no file', postForm(via(tokenC.address, 'standard-input'), { compiler_version: BUNDLED_VERSION }), 400, /JSON files not found/],
    ['a source that does not compile', postJson(via(tokenC.address, 'flattened-code'), { compiler_version: BUNDLED_VERSION, source_code: 'contract {' }), 400, /Compilation failed/],
    ['an unknown evm version', postJson(via(tokenC.address, 'flattened-code'), { compiler_version: BUNDLED_VERSION, source_code: tokenSource, evm_version: 'future' }), 400, /unknown evm version/],
    ['an address without code', postForm(via(wallets[0]!.address, 'standard-input'), { compiler_version: BUNDLED_VERSION }, { 'input.json': input }), 404, /not a smart-contract/]
  ]
  for (const [name, answer, status, message] of cases) {
    const { status: got, json } = await answer
    t.equal(got, status, name)
    t.match(json.message, message, name)
  }
  t.equal((await postJson(via('0x1234', 'flattened-code'), { compiler_version: BUNDLED_VERSION, source_code: 'x' })).status, 422, 'a malformed address')
  t.equal((await postJson(via(tokenC.address, 'flattened-code'), { source_code: 'x' })).status, 422, 'no compiler version')
  t.equal(await findVerifiedContract(db, tokenC.address), null)
  t.equal(await findVerifiedContract(db, wallets[0]!.address), null)
  const detail = (await get(`/api/v2/smart-contracts/${tokenC.address}`)).json()
  t.equal(detail.is_verified, undefined, 'tokenC is not verified: the six keys only')
  t.equal((await get('/api/v2/smart-contracts/counters')).json().verified_smart_contracts, '2')
})

t.test('multi-part verifies a contract linked to a library: a wrong library address does not match, the right one does, and without one it is read from the code', async (t) => {
  const fields = { compiler_version: BUNDLED_VERSION, is_optimization_enabled: 'true', optimization_runs: '200', evm_version: 'paris' }
  const files = { 'Linked.sol': linkedSource }
  const wrong = await postForm(via(scaled.address, 'multi-part'), { ...fields, libraries: JSON.stringify({ Scale: '0x' + '11'.repeat(20) }) }, files)
  t.equal(wrong.status, 400)
  t.match(wrong.json.message, /does not match/)
  t.equal(await findVerifiedContract(db, scaled.address), null)

  // Linked by the compiler: the settings (in the metadata) differ from the deployer's, who linked afterwards.
  const named = await postForm(via(scaled.address, 'multi-part'), { ...fields, libraries: JSON.stringify({ Scale: library.address }) }, files)
  t.same(named, { status: 200, json: { message: 'Smart-contract verification started' } })
  const partial = (await get(`/api/v2/smart-contracts/${scaled.address}`)).json()
  t.match(partial, { is_partially_verified: true })
  t.same(partial.external_libraries, [{ name: 'Linked.sol:Scale', address_hash: getAddress(library.address) }])

  const answer = await postForm(via(scaled.address, 'multi-part'), fields, files)
  t.same(answer, { status: 200, json: { message: 'Smart-contract verification started' } })
  const detail = (await get(`/api/v2/smart-contracts/${scaled.address}`)).json()
  t.equal(detailSpec?.(detail), undefined, 'matches Blockscout\'s SmartContract schema')
  t.match(detail, { name: 'ScaledCounter', is_fully_verified: true, file_path: 'Linked.sol', constructor_args: null, decoded_constructor_args: null })
  t.same(detail.external_libraries, [{ name: 'Linked.sol:Scale', address_hash: getAddress(library.address) }], 'read from the deployed code')
})

t.test('proxies: an EIP-1967 proxy and an EIP-1167 clone name their implementation, with its name once verified', async (t) => {
  for (const hash of [incrementDirect, incrementViaProxy]) t.equal((await get(`/api/v2/transactions/${hash}`)).json().decoded_input, null, 'nothing decodes increment() yet')
  const before = (await get(`/api/v2/smart-contracts/${proxy.address}`)).json()
  t.match(before, { proxy_type: 'eip1967', implementations: [{ address_hash: getAddress(counter.address), name: null }] })
  t.equal(before.is_verified, undefined, 'the proxy itself is not verified')
  const answer = await postJson(via(counter.address, 'standard-input'), { compiler_version: BUNDLED_VERSION, contract_name: 'Proxies.sol:Counter', input: proxiesInput })
  t.equal(answer.status, 200)
  for (const [address, type] of [[proxy.address, 'eip1967'], [clone, 'eip1167']] as const) {
    // The proxy reading is kept 10 s, the implementation's name is read each time.
    const detail = (await get(`/api/v2/smart-contracts/${address}`)).json()
    t.equal(detailSpec?.(detail), undefined, 'matches Blockscout\'s SmartContract schema')
    t.match(detail, { proxy_type: type, implementations: [{ address_hash: getAddress(counter.address), name: 'Counter' }] }, type)
  }
  t.match((await get(`/api/v2/smart-contracts/${counter.address}`)).json(), { proxy_type: null, implementations: [] }, 'the implementation is no proxy')
})

t.test('once Counter is verified, calls to it and through its proxy are decoded by its ABI and summarised with its name', async (t) => {
  // Runs after the proxies test, which verified Counter; the same calls were undecodable before (first request below each).
  for (const hash of [incrementDirect, incrementViaProxy]) {
    const detail = (await get(`/api/v2/transactions/${hash}`)).json()
    t.match(detail.decoded_input, { method_call: 'increment()', parameters: [] }, hash === incrementDirect ? 'a direct call' : 'a call through the proxy')
    t.equal(detail.method, 'increment')
  }
  const summary = (await get(`/api/v2/transactions/${incrementDirect}/summary`)).json()
  t.match(JSON.stringify(summary), /Counter/, 'the summary names the verified contract')
})

t.test('a factory\'s child with a verified twin shows as verified by similarity, without being stored', async (t) => {
  const before = (await get(`/api/v2/smart-contracts/${child2}`)).json()
  t.equal(before.is_verified, undefined)
  // child1 was made by Factory.make(): its creation code is the CREATE frame's input.
  const answer = await postJson(via(child1, 'standard-input'), { compiler_version: BUNDLED_VERSION, contract_name: 'Child', input: proxiesInput })
  t.same(answer, { status: 200, json: { message: 'Smart-contract verification started' } })
  t.match((await get(`/api/v2/smart-contracts/${child1}`)).json(), { name: 'Child', is_fully_verified: true, verified_twin_address_hash: null })
  const twin = (await get(`/api/v2/smart-contracts/${child2}`)).json()
  t.equal(detailSpec?.(twin), undefined, 'matches Blockscout\'s SmartContract schema')
  t.match(twin, {
    is_verified: true,
    is_partially_verified: true,
    is_fully_verified: false,
    verified_twin_address_hash: getAddress(child1),
    name: 'Child',
    source_code: proxiesSource,
    constructor_args: null
  })
  t.equal(await findVerifiedContract(db, child2), null, 'the twin is not stored as verified')
  t.equal((await get(`/api/v2/smart-contracts/${factory.address}`)).json().is_verified, undefined, 'other code has no twin')
})

t.test('the address\'s socket topic hears verification_result, as Blockscout\'s verification form waits for', async (t) => {
  const socket = new Socket(`${url.replace('http', 'ws')}/socket/v2`, { transport: WebSocket as never, reconnectAfterMs: () => 100 })
  socket.connect()
  t.teardown(() => socket.disconnect())
  const channel = socket.channel(`addresses:${tokenC.address}`, {})
  await new Promise((resolve, reject) => { channel.join().receive('ok', resolve).receive('error', reject) })
  const results: any[] = []
  channel.on('verification_result', (payload) => { results.push(payload) })
  const wait = async (count: number) => { while (results.length < count) await new Promise((resolve) => setTimeout(resolve, 20)) }

  await postForm(via(tokenC.address, 'standard-input'), { compiler_version: 'v0.8.19+commit.7dd6d404' }, { 'input.json': JSON.stringify(tokenInput) })
  await wait(1)
  t.match(results[0], { status: 'error', errors: { compiler_version: [/not available/] } })
  const answer = await postForm(via(tokenC.address, 'standard-input'), { compiler_version: BUNDLED_VERSION }, { 'input.json': JSON.stringify(tokenInput) })
  t.equal(answer.status, 200)
  await wait(2)
  t.same(results[1], { status: 'success' })
})
