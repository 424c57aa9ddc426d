// Contract verification through Blockscout's routes on a real chain: an
// ERC-20 with constructor arguments and immutables by standard JSON input
// (multipart, as Blockscout's front end sends it) and by flattened code, a
// library-linking contract by multi-part sources, an ERC-721 and an
// ERC-1155, an EIP-1967 proxy (itself too) and EIP-1167 clone, a beacon proxy
// and an EIP-1822 proxy, a factory's children (bytecode twins), and every way
// a verification can fail, storing nothing. Calls and logs decode by what was
// verified: a contract's own ABI, its proxy implementation's, its bytecode
// twin's, or any verified ABI holding the selector.
import t from 'tap'
import WebSocket from 'ws'
import { Socket } from 'phoenix'
import { AbiCoder, Interface, getAddress } from 'ethers'
import { build } from '../../helper.ts'
import { writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { responseValidator } from '../../support/openapi.ts'
import { BUNDLED_VERSION, compileStandard, createSender, deployProxies, fixturePath, readFixture, standardInput } from '../../support/verify.ts'
import { compileContract } from '../../support/contracts.ts'
import { findVerifiedContract } from '../../../core/verify/index.ts'
import { createVerifiedAbiSource } from '../../../core/verify/abi-source.ts'

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
const libraryCode = compileStandard(linkedInput, 'Linked.sol', 'Scale').bytecode
const scaledCode = compileStandard(linkedInput, 'Linked.sol', 'ScaledCounter')
const linkedTo = (libraryAddress: string) => scaledCode.bytecode.replace(/__\$[0-9a-f]{34}\$__/g, libraryAddress.slice(2))
const library = await sender.deploy(libraryCode)
const scaled = await sender.deploy(linkedTo(library.address))
// Another copy linked to another copy of the library: other code (no twin), the same bump(uint256), in no bundled table.
const scaledElsewhere = await sender.deploy(linkedTo((await sender.deploy(libraryCode)).address))
const bumpElsewhere = await sender.send(scaledElsewhere.address, scaledCode.abi.encodeFunctionData('bump', [5n]))

// An implementation, an EIP-1967 proxy to it, a factory's children (same code) and an EIP-1167 clone of it.
const { source: proxiesSource, input: proxiesInput, counterCode, counter, proxy, factory, child1, child2, clone } = await deployProxies(sender)
// increment() is in no signature table: only Counter's verified ABI decodes it, through the proxy too.
const incrementInput = counterCode.abi.encodeFunctionData('increment')
const [incrementDirect, incrementViaProxy] = [await sender.send(counter.address, incrementInput), await sender.send(proxy.address, incrementInput)]
// An ERC-721 and an ERC-1155, deployed from the JSON committed beside their sources (compiled from the same standard input).
const committed = async (file: string, name: string) => await compileContract(fixturePath(file), name)
const [nftCode, multiCode] = await Promise.all([committed('TestNft.sol', 'TestNft'), committed('TestMulti.sol', 'TestMulti')])
const nft = await sender.deploy(nftCode.bytecode)
const multi = await sender.deploy(multiCode.bytecode)
// A beacon proxy and an EIP-1822 proxy, both to Tally; tallyUp() is in no signature table.
const [tallyCode, beaconCode, beaconProxyCode, uupsProxyCode] = await Promise.all(['Tally', 'Beacon', 'BeaconProxy', 'UupsProxy'].map(async (name) => await committed('Upgradeable.sol', name)))
const addressArg = (address: string) => AbiCoder.defaultAbiCoder().encode(['address'], [address]).slice(2)
const tally = await sender.deploy(tallyCode!.bytecode)
const beacon = await sender.deploy(beaconCode!.bytecode + addressArg(tally.address))
const beaconProxy = await sender.deploy(beaconProxyCode!.bytecode + addressArg(beacon.address))
const uupsProxy = await sender.deploy(uupsProxyCode!.bytecode + addressArg(tally.address))
const tallyUp = new Interface(tallyCode!.abi as never).encodeFunctionData('tallyUp')
const tallyViaBeacon = await sender.send(beaconProxy.address, tallyUp)
const tallyViaUups = await sender.send(uupsProxy.address, tallyUp)
const madeOnChild2 = await sender.send(child2, new Interface(['function made() view returns (uint256)']).encodeFunctionData('made'))

// Showcase twice (twins): its Noted event (an indexed string, an indexed address, a tuple) is in no bundled table,
// and its transfer(dest, wad) collides with VerifiedToken's transfer(to, value).
const showcaseSource = await readFixture('Showcase.sol')
const showcaseInput = standardInput({ 'Showcase.sol': showcaseSource })
const showcaseCode = compileStandard(showcaseInput, 'Showcase.sol', 'Showcase')
const [showcase1, showcase2] = [await sender.deploy(showcaseCode.bytecode), await sender.deploy(showcaseCode.bytecode)]
const note = (topic: string) => showcaseCode.abi.encodeFunctionData('note', [topic, [wallets[0]!.address, [1n, 2n], '0xbeef'], [`0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`], true, -7])
const [noteOn1, noteOn2] = [await sender.send(showcase1.address, note('first')), await sender.send(showcase2.address, note('second'))]
const transferOn2 = await sender.send(showcase2.address, showcaseCode.abi.encodeFunctionData('transfer', [tokenA.address, 5n]))
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
/** The detail's fields of a full match of a single source by standardInput()'s settings. */
const FULL_MATCH_BY_STANDARD_INPUT = {
  is_verified: true,
  is_fully_verified: true,
  is_partially_verified: false,
  verified_twin_address_hash: null,
  compiler_version: BUNDLED_VERSION,
  optimization_enabled: true,
  optimization_runs: 200,
  evm_version: 'paris',
  additional_sources: [],
  language: 'solidity'
}
const decodedInputOf = async (hash: string) => (await get(`/api/v2/transactions/${hash}`)).json().decoded_input
const logsOf = async (hash: string) => (await get(`/api/v2/transactions/${hash}/logs`)).json().items as Array<{ topics: Array<string | null>, data: string, decoded: unknown }>

/** A log as Blockscout decodes it, from ethers' own parsing of the same log. */
function parsedByEthers (abi: Interface, log: { topics: Array<string | null>, data: string }) {
  const parsed = abi.parseLog({ topics: log.topics.filter((topic) => topic !== null), data: log.data })!
  const render = (value: any): unknown => Array.isArray(value) ? [...value].map(render) : typeof value === 'bigint' ? value.toString() : value?.hash ?? (typeof value === 'boolean' ? String(value) : value)
  return {
    method_id: parsed.topic.slice(2, 10),
    method_call: `${parsed.name}(${parsed.fragment.inputs.map((p) => `${p.format('sighash')}${p.indexed === true ? ' indexed' : ''} ${p.name}`).join(', ')})`,
    parameters: parsed.fragment.inputs.map((p, i) => ({ name: p.name, type: p.format('sighash'), indexed: p.indexed === true, value: render(parsed.args[i]) }))
  }
}

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
    ...FULL_MATCH_BY_STANDARD_INPUT,
    name: 'VerifiedToken',
    file_path: 'contracts/VerifiedToken.sol',
    source_code: tokenSource,
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

t.test('multi-part verifies a contract linked to a library: a wrong library address does not match, the right one fully, and without one it is read from the code', async (t) => {
  t.equal(await decodedInputOf(bumpElsewhere), null, 'bump(uint256) is in no table before')
  const fields = { compiler_version: BUNDLED_VERSION, is_optimization_enabled: 'true', optimization_runs: '200', evm_version: 'paris' }
  const files = { 'Linked.sol': linkedSource }
  const wrong = await postForm(via(scaled.address, 'multi-part'), { ...fields, libraries: JSON.stringify({ Scale: '0x' + '11'.repeat(20) }) }, files)
  t.equal(wrong.status, 400)
  t.match(wrong.json.message, /does not match/)
  t.equal(await findVerifiedContract(db, scaled.address), null)

  // Linked by the compiler, the settings (in the metadata) would differ from the deployer's, who linked afterwards: a full match all the same.
  const named = await postForm(via(scaled.address, 'multi-part'), { ...fields, libraries: JSON.stringify({ Scale: library.address }) }, files)
  t.same(named, { status: 200, json: { message: 'Smart-contract verification started' } })
  const detail = (await get(`/api/v2/smart-contracts/${scaled.address}`)).json()
  t.equal(detail.compiler_settings.libraries, undefined, 'the settings stored are those that compile to the deployed code')
  t.same(await postForm(via(scaled.address, 'multi-part'), fields, files), { status: 200, json: { message: 'Already verified' } }, 'without the library named')
  t.equal(detailSpec?.(detail), undefined, 'matches Blockscout\'s SmartContract schema')
  t.match(detail, { name: 'ScaledCounter', is_fully_verified: true, file_path: 'Linked.sol', constructor_args: null, decoded_constructor_args: null })
  t.same(detail.external_libraries, [{ name: 'Linked.sol:Scale', address_hash: getAddress(library.address) }], 'read from the deployed code')

  // The other copy is neither verified nor a twin (another library's address in its code): the verified ABI's fragment decodes its call.
  t.equal((await get(`/api/v2/smart-contracts/${scaledElsewhere.address}`)).json().is_verified, undefined)
  t.same(await decodedInputOf(bumpElsewhere), { method_id: scaledCode.abi.getFunction('bump')!.selector.slice(2), method_call: 'bump(uint256 by)', parameters: [{ name: 'by', type: 'uint256', value: '5' }] })
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

t.test('the EIP-1967 proxy itself verifies: its name, constructor argument and implementation; calls through it still decode by the implementation', async (t) => {
  // Runs after the proxies test, which verified Counter.
  const answer = await postJson(via(proxy.address, 'standard-input'), { compiler_version: BUNDLED_VERSION, contract_name: 'Proxies.sol:SlotProxy', input: proxiesInput })
  t.same(answer, { status: 200, json: { message: 'Smart-contract verification started' } })
  const detail = (await get(`/api/v2/smart-contracts/${proxy.address}`)).json()
  t.equal(detailSpec?.(detail), undefined, 'matches Blockscout\'s SmartContract schema')
  t.match(detail, {
    is_verified: true,
    is_fully_verified: true,
    name: 'SlotProxy',
    file_path: 'Proxies.sol',
    source_code: proxiesSource,
    constructor_args: '0x' + addressArg(counter.address),
    has_constructor_args: true,
    proxy_type: 'eip1967',
    implementations: [{ address_hash: getAddress(counter.address), name: 'Counter' }]
  })
  t.same(detail.decoded_constructor_args, [[getAddress(counter.address), { internalType: 'address', name: 'implementation', type: 'address' }]])
  t.same(detail.abi.map((item: { type: string }) => item.type).sort(), ['constructor', 'fallback'], 'the proxy\'s own ABI')
  t.match((await get(`/api/v2/addresses/${proxy.address}`)).json(), { is_verified: true, name: 'SlotProxy', is_contract: true })
  t.match((await get(`/api/v2/transactions/${incrementViaProxy}`)).json().decoded_input, { method_call: 'increment()', parameters: [] }, 'its own ABI, then Counter\'s')
})

t.test('an ERC-721 and an ERC-1155 verify by standard input: every verified field', async (t) => {
  for (const [deployed, file, name, compiled] of [[nft, 'TestNft.sol', 'TestNft', nftCode], [multi, 'TestMulti.sol', 'TestMulti', multiCode]] as const) {
    const source = await readFixture(file)
    const answer = await postJson(via(deployed.address, 'standard-input'), { compiler_version: BUNDLED_VERSION, contract_name: name, license_type: 'mit', input: standardInput({ [file]: source }) })
    t.same(answer, { status: 200, json: { message: 'Smart-contract verification started' } }, name)
    const detail = (await get(`/api/v2/smart-contracts/${deployed.address}`)).json()
    t.equal(detailSpec?.(detail), undefined, 'matches Blockscout\'s SmartContract schema')
    t.match(detail, {
      ...FULL_MATCH_BY_STANDARD_INPUT,
      name,
      file_path: file,
      source_code: source,
      license_type: 'mit',
      constructor_args: null,
      decoded_constructor_args: null,
      has_constructor_args: false,
      external_libraries: [],
      proxy_type: null,
      implementations: []
    }, name)
    t.same(detail.abi, compiled.abi, `${name}: the compiler's whole ABI`)
    t.match(detail.compiler_settings, { evmVersion: 'paris', optimizer: { enabled: true, runs: 200 } })
    t.match((await get(`/api/v2/addresses/${deployed.address}`)).json(), { is_verified: true, name, is_contract: true })
    t.match(await findVerifiedContract(db, deployed.address), { name, matchType: 'full', constructorArguments: null, verificationMethod: 'standard-input' })
  }
})

t.test('a beacon proxy and an EIP-1822 proxy show their implementation; once it is verified, calls through them decode by its ABI', async (t) => {
  for (const hash of [tallyViaBeacon, tallyViaUups]) t.equal((await get(`/api/v2/transactions/${hash}`)).json().decoded_input, null, 'nothing decodes tallyUp() yet')
  const kinds = [[beaconProxy.address, 'eip1967', 'the beacon\'s implementation()'], [uupsProxy.address, 'eip1822', 'the PROXIABLE slot']] as const
  for (const [address, type, why] of kinds) {
    t.match((await get(`/api/v2/smart-contracts/${address}`)).json(), { proxy_type: type, implementations: [{ address_hash: getAddress(tally.address), name: null }] }, why)
  }
  const answer = await postJson(via(tally.address, 'standard-input'), { compiler_version: BUNDLED_VERSION, contract_name: 'Tally', input: standardInput({ 'Upgradeable.sol': await readFixture('Upgradeable.sol') }) })
  t.same(answer, { status: 200, json: { message: 'Smart-contract verification started' } })
  for (const [address, type, why] of kinds) {
    const detail = (await get(`/api/v2/smart-contracts/${address}`)).json()
    t.equal(detailSpec?.(detail), undefined, 'matches Blockscout\'s SmartContract schema')
    t.match(detail, { proxy_type: type, implementations: [{ address_hash: getAddress(tally.address), name: 'Tally' }] }, why)
    t.equal(detail.is_verified, undefined, 'the proxy itself is not verified')
  }
  t.match((await get(`/api/v2/smart-contracts/${beacon.address}`)).json(), { proxy_type: null, implementations: [] }, 'the beacon is no proxy')
  for (const [hash, through] of [[tallyViaBeacon, 'the beacon proxy'], [tallyViaUups, 'the EIP-1822 proxy']] as const) {
    const detail = (await get(`/api/v2/transactions/${hash}`)).json()
    t.match(detail.decoded_input, { method_call: 'tallyUp()', parameters: [] }, through)
    t.equal(detail.method, 'tallyUp', through)
  }
  // Decoded by its implementation, the EIP-1822 proxy is not verified itself: it keeps no name of Tally's (Blockscout lists the implementation instead).
  const viaUups = (await get(`/api/v2/transactions/${tallyViaUups}/interpretation`)).json()
  t.match(viaUups.decoded_input, { method_call: 'tallyUp()' })
  t.same(viaUups.transaction.to, { hash: getAddress(uupsProxy.address), name: null, is_contract: true, is_verified: false })
  t.same(viaUups.summaries_text, [`Called tallyUp on ${getAddress(uupsProxy.address)}`])
  t.equal((await get(`/api/v2/addresses/${uupsProxy.address}`)).json().is_verified, false)
})

t.test('a call through a beacon proxy is summarised by the implementation it ran, after the beacon was upgraded', async (t) => {
  // Runs after the test above, which verified Tally. A beacon and proxy of their own: nothing read them before the upgrade.
  const [tallyV2Code, upgradedBeacon] = [await committed('Upgradeable.sol', 'TallyV2'), await sender.deploy(beaconCode!.bytecode + addressArg(tally.address))]
  const upgradedProxy = await sender.deploy(beaconProxyCode!.bytecode + addressArg(upgradedBeacon.address))
  const before = await sender.send(upgradedProxy.address, tallyUp)
  const tallyV2 = await sender.deploy(tallyV2Code.bytecode)
  await sender.send(upgradedBeacon.address, new Interface(beaconCode!.abi as never).encodeFunctionData('upgradeTo', [tallyV2.address]))
  const tallyV2Abi = new Interface(tallyV2Code.abi as never)
  const after = await sender.send(upgradedProxy.address, tallyV2Abi.encodeFunctionData('tallyTwice'))
  await waitForIndexed(app)
  const answer = await postJson(via(tallyV2.address, 'standard-input'), { compiler_version: BUNDLED_VERSION, contract_name: 'TallyV2', input: standardInput({ 'Upgradeable.sol': await readFixture('Upgradeable.sol') }) })
  t.same(answer, { status: 200, json: { message: 'Smart-contract verification started' } })
  const summary = async (hash: string) => (await get(`/api/v2/transactions/${hash}/summary`)).json().data.summaries
  // The unverified proxy is not named after its implementation; its calls decode by what it ran.
  const called = (method: string) => [{
    summary_template: 'Called {method} on {to_address}',
    summary_template_variables: { method: { type: 'method', value: method }, to_address: { type: 'address', value: { hash: getAddress(upgradedProxy.address), name: null, is_verified: false } } }
  }]
  t.match(await summary(before), called('tallyUp'))
  t.match(await summary(after), called('tallyTwice'))
  // Both ABIs are verified (the verified table holds both methods): the ABI source shows which implementation each block had.
  const source = createVerifiedAbiSource({ db, proxies: app.verifier.proxies })
  const blockOf = async (hash: string) => Number((await get(`/api/v2/transactions/${hash}`)).json().block_number)
  t.match(await source.abiFor(upgradedProxy.address, await blockOf(before)), { name: null, implementation: { name: 'Tally' } }, 'read at its block: Tally (TallyV2 has no tallyUp)')
  t.match(await source.abiFor(upgradedProxy.address, await blockOf(after)), { name: null, implementation: { name: 'TallyV2' } }, 'after the upgrade: TallyV2')
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
  t.same(await decodedInputOf(madeOnChild2), { method_id: new Interface(['function made()']).getFunction('made')!.selector.slice(2), method_call: 'made()', parameters: [] },
    'a call to the twin decodes by the verified one\'s ABI')
})

t.test('a verified contract\'s logs decode by its ABI as ethers parses them: null before, Blockscout\'s shape with indexed flags after; its twin\'s calls and logs by the same ABI, before any other verified fragment', async (t) => {
  const [before] = await logsOf(noteOn1)
  t.equal(before!.decoded, null, 'Noted is in no table before')
  t.match(await decodedInputOf(transferOn2), { method_call: 'transfer(address to, uint256 value)' }, 'before: VerifiedToken\'s verified transfer() decodes the selector')
  const answer = await postJson(via(showcase1.address, 'standard-input'), { compiler_version: BUNDLED_VERSION, contract_name: 'Showcase', input: showcaseInput })
  t.same(answer, { status: 200, json: { message: 'Smart-contract verification started' } })
  for (const hash of [noteOn1, noteOn2]) {
    const [log] = await logsOf(hash)
    t.same(log!.decoded, parsedByEthers(showcaseCode.abi, log!), hash === noteOn1 ? 'the verified contract\'s log' : 'its twin\'s log')
  }
  const [noted] = await logsOf(noteOn1)
  t.match(noted!.decoded, { method_call: 'Noted(string indexed topic, address indexed who, int256 delta, (address,uint256[],bytes) order)' })
  t.same((noted!.decoded as { parameters: Array<{ indexed: boolean }> }).parameters.map((p) => p.indexed), [true, true, false, false])
  t.match(await decodedInputOf(noteOn1), { method_call: 'note(string topic, (address,uint256[],bytes) order, bytes32[2] keys, bool flag, int8 delta)' })
  t.same(await decodedInputOf(transferOn2), {
    method_id: 'a9059cbb',
    method_call: 'transfer(address dest, uint256 wad)',
    parameters: [{ name: 'dest', type: 'address', value: getAddress(tokenA.address) }, { name: 'wad', type: 'uint256', value: '5' }]
  }, 'the twin\'s own ABI first')
  t.match(await decodedInputOf(noteOn2), { method_call: /^note\(string topic/ }, 'and its note() too')
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

t.test('a deployed library verifies fully: its code begins with PUSH20 of its own address, zero as compiled', async (t) => {
  t.match((await app.geth.rpc.call<string>('eth_getCode', [library.address, 'latest'])).toLowerCase(), `0x73${library.address.slice(2)}3014`)
  const answer = await postJson(via(library.address, 'standard-input'), { compiler_version: BUNDLED_VERSION, contract_name: 'Linked.sol:Scale', input: linkedInput })
  t.same(answer, { status: 200, json: { message: 'Smart-contract verification started' } })
  t.match((await get(`/api/v2/smart-contracts/${library.address}`)).json(), { name: 'Scale', is_fully_verified: true, file_path: 'Linked.sol' })
})
