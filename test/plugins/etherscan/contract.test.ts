// Etherscan's contract module on a real chain, as hardhat-verify and forge
// verify-contract call it: verifysourcecode by form and by JSON (standard
// JSON input and a single file), checkverifystatus until the end,
// getsourcecode, getabi, getcontractcreation, and failures storing nothing;
// txlist's functionName by the verified ABI once verified.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { AbiCoder, Wallet } from 'ethers'
import { build } from '../../helper.ts'
import { writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { BUNDLED_VERSION, compileStandard, createSender, readFixture, standardInput } from '../../support/verify.ts'
import { findVerifiedContract } from '../../../core/verify/index.ts'
import { createApiKey } from '../../../core/api-keys/store.ts'

const { wallets, allocFile } = await writeFundedAlloc(t, 1)
const { app, url } = await build(t, { GENESIS_ALLOC: allocFile })
const db = app.db.knex
const sender = createSender(app.geth.rpc, wallets[0]!)
const source = await readFixture('VerifiedToken.sol')
const input = standardInput({ 'src/VerifiedToken.sol': source })
const token = compileStandard(input, 'src/VerifiedToken.sol', 'VerifiedToken')
const args = (name: string) => AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint256', 'uint256'], [name, 'EV', 50n, 100n]).slice(2)
const first = await sender.deploy(token.bytecode + args('First'))
const second = await sender.deploy(token.bytecode + args('Second'))
const third = await sender.deploy(token.bytecode + args('Third'))
// What forge writes as its standard JSON input (remappings, metadata settings, libraries, viaIR false, its outputSelection).
const forgeInput = {
  language: 'Solidity' as const,
  sources: { 'src/VerifiedToken.sol': { content: source } },
  settings: {
    remappings: ['forge-std/=lib/forge-std/src/'],
    optimizer: { enabled: true, runs: 200 },
    metadata: { useLiteralContent: false, bytecodeHash: 'ipfs', appendCBOR: true },
    outputSelection: { '*': { '': ['ast'], '*': ['abi', 'evm.bytecode.object', 'evm.bytecode.sourceMap', 'evm.bytecode.linkReferences', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences', 'evm.methodIdentifiers', 'metadata'] } },
    evmVersion: 'paris',
    viaIR: false,
    libraries: {}
  }
}
// Compiled through the IR: verifiable as a single file only when the request says viaIR, as forge --via-ir does.
const throughIr = await sender.deploy(compileStandard(standardInput({ 'VerifiedToken.sol': source }, { viaIR: true }), 'VerifiedToken.sol', 'VerifiedToken').bytecode + args('Ir'))
const forged = await sender.deploy(compileStandard(forgeInput, 'src/VerifiedToken.sol', 'VerifiedToken').bytecode + args('Forged'))
// Calls txlist names: a transfer to the token verified in the first test, to one never verified, an
// unknown selector, and the transfer's input sent to an address without code.
const transferInput = token.abi.encodeFunctionData('transfer', [wallets[0]!.address, 1n])
const callFirst = await sender.send(first.address, transferInput)
const callThird = await sender.send(third.address, transferInput)
const unknownCall = await sender.send(third.address, '0xdeadbeef')
const stranger = Wallet.createRandom().address.toLowerCase()
const toNoCode = await sender.send(stranger, transferInput)
await waitForIndexed(app)

const api = async (query: string) => (await app.inject({ method: 'GET', url: `/api?${query}` })).json()
/** As hardhat-verify sends it: a urlencoded form, module and action in the body. */
async function postForm (fields: Record<string, string>) {
  const response = await fetch(`${url}/api`, { method: 'POST', body: new URLSearchParams(fields) })
  return await response.json() as any
}
async function waitForStatus (guid: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const status = await api(`module=contract&action=checkverifystatus&guid=${guid}`)
    if (status.result !== 'Pending in queue') return status
    await sleep(200)
  }
  throw new Error('verification still pending')
}
/** Transaction `hash` as txlist of `address` lists it. */
async function listed (address: string, hash: string): Promise<any> {
  return (await api(`module=account&action=txlist&address=${address}`)).result.find((tx: { hash: string }) => tx.hash === hash)
}

t.test('verifysourcecode (form, standard JSON input) then checkverifystatus: Pass - Verified; getsourcecode and getabi read it', async (t) => {
  const before = await api(`module=contract&action=getsourcecode&address=${first.address}`)
  t.match(before, { status: '1', result: [{ SourceCode: '', ABI: 'Contract source code not verified' }] }, 'hardhat-verify\'s is-verified check')
  t.same(await api(`module=contract&action=getabi&address=${first.address}`), { status: '0', message: 'NOTOK', result: 'Contract source code not verified' })
  t.match(await listed(first.address, callFirst), { methodId: '0xa9059cbb', functionName: 'transfer(address to, uint256 amount)' }, 'txlist: not verified, named by the selector table')

  // hardhat-verify sends its configured key in the form: a live one (a made-up one answers 401).
  const { key } = await createApiKey(db, { label: 'hardhat', tier: 'public' })
  const submitted = await postForm({
    module: 'contract',
    action: 'verifysourcecode',
    apikey: key,
    contractaddress: first.address,
    sourceCode: JSON.stringify(input),
    codeformat: 'solidity-standard-json-input',
    contractname: 'src/VerifiedToken.sol:VerifiedToken',
    compilerversion: BUNDLED_VERSION,
    constructorArguements: args('First'),
    licenseType: '3'
  })
  t.match(submitted, { status: '1', message: 'OK', result: /^[0-9a-f]{32}$/ })
  t.same(await waitForStatus(submitted.result), { status: '1', message: 'OK', result: 'Pass - Verified' })
  t.match(await listed(first.address, callFirst), { methodId: '0xa9059cbb', functionName: 'transfer(address to, uint256 value)' },
    'txlist: verified, named by its ABI (its parameter names) at once')

  const [sourceCode] = (await api(`module=contract&action=getsourcecode&address=${first.address}`)).result
  t.match(sourceCode, {
    SourceCode: source,
    ContractName: 'VerifiedToken',
    CompilerVersion: BUNDLED_VERSION,
    OptimizationUsed: '1',
    Runs: '200',
    ConstructorArguments: args('First'),
    EVMVersion: 'paris',
    LicenseType: 'MIT',
    FileName: 'src/VerifiedToken.sol'
  })
  const abi = await api(`module=contract&action=getabi&address=${first.address}`)
  t.equal(abi.status, '1')
  t.equal(JSON.parse(abi.result).length, JSON.parse(token.abi.formatJson()).length, 'the whole ABI')
  t.ok(JSON.parse(abi.result).some((item: { name?: string }) => item.name === 'cap'))
  t.match(await findVerifiedContract(db, first.address), { matchType: 'full', verificationMethod: 'etherscan' })

  const again = await postForm({
    module: 'contract',
    action: 'verifysourcecode',
    contractaddress: first.address,
    sourceCode: JSON.stringify(input),
    codeformat: 'solidity-standard-json-input',
    contractname: 'src/VerifiedToken.sol:VerifiedToken',
    compilerversion: BUNDLED_VERSION
  })
  t.same(again, { status: '0', message: 'NOTOK', result: 'Contract source code already verified' })
})

t.test('txlist functionName of calls to a contract nobody verified: by its verified twin\'s ABI, or "" for an unknown selector and for no contract', async (t) => {
  // The same code as the VerifiedToken verified above (a twin): its ABI names transfer()'s parameters (value, not the bundled table's amount).
  t.match(await listed(third.address, callThird), { methodId: '0xa9059cbb', functionName: 'transfer(address to, uint256 value)' })
  t.match(await listed(third.address, unknownCall), { methodId: '0xdeadbeef', functionName: '' })
  t.match(await listed(stranger, toNoCode), { methodId: '0xa9059cbb', functionName: '' }, 'the same input to an address without code')
})

t.test('verifysourcecode (JSON, single file, module and action in the query) verifies a partial match', async (t) => {
  const response = await app.inject({
    method: 'POST',
    url: '/api?module=contract&action=verifysourcecode',
    payload: {
      contractaddress: second.address,
      sourceCode: source,
      codeformat: 'solidity-single-file',
      contractname: 'VerifiedToken',
      compilerversion: BUNDLED_VERSION,
      optimizationUsed: 1,
      runs: 200,
      evmversion: 'paris',
      constructorArguements: args('Second')
    }
  })
  const guid = response.json().result
  t.same(await waitForStatus(guid), { status: '1', message: 'OK', result: 'Pass - Verified' })
  // Deployed from src/VerifiedToken.sol, sent as VerifiedToken.sol: the metadata differs.
  t.match(await findVerifiedContract(db, second.address), { matchType: 'partial', filePath: 'VerifiedToken.sol', constructorArguments: '0x' + args('Second') })
})

t.test('forge verify-contract\'s requests as it sends them: getsourcecode, then verifysourcecode and checkverifystatus as POSTed forms', async (t) => {
  // foundry-block-explorers' VerifyContract, form-encoded after apikey, module and action, in its field order:
  // both spellings of the constructor arguments (hex without 0x); no optimizer fields beside a standard JSON input.
  // Etherscan v2 clients name the chain in the query.
  const { key } = await createApiKey(db, { label: 'forge', tier: 'public' })
  const submit = `apikey=${key}&module=contract&action=verifysourcecode` +
    `&contractaddress=${forged.address}` +
    `&sourceCode=${encodeURIComponent(JSON.stringify(forgeInput))}` +
    '&codeformat=solidity-standard-json-input' +
    `&contractname=${encodeURIComponent('src/VerifiedToken.sol:VerifiedToken')}` +
    `&compilerversion=${encodeURIComponent(BUNDLED_VERSION)}` +
    `&constructorArguements=${args('Forged')}&constructorArguments=${args('Forged')}`
  const post = async (body: string) => await (await fetch(`${url}/api?chainid=793788`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })).json() as any
  const before = await api(`apikey=${key}&module=contract&action=getsourcecode&address=${forged.address}&chainid=793788`)
  t.match(before, { status: '1', result: [{ SourceCode: '', ABI: 'Contract source code not verified' }] }, 'forge\'s is-verified check')

  const submitted = await post(submit)
  t.match(submitted, { status: '1', message: 'OK', result: /^[0-9a-f]{32}$/ })
  let status: any
  for (let i = 0; i < 600; i++) {
    status = await post(`apikey=${key}&module=contract&action=checkverifystatus&guid=${submitted.result}`)
    if (status.result !== 'Pending in queue') break
    await sleep(200)
  }
  t.same(status, { status: '1', message: 'OK', result: 'Pass - Verified' })
  t.match(await findVerifiedContract(db, forged.address), {
    name: 'VerifiedToken', matchType: 'full', filePath: 'src/VerifiedToken.sol', constructorArguments: '0x' + args('Forged'), verificationMethod: 'etherscan'
  })
  t.match((await findVerifiedContract(db, forged.address))?.compilerSettings, { remappings: ['forge-std/=lib/forge-std/src/'], metadata: { bytecodeHash: 'ipfs' } }, 'forge\'s settings kept')
  // forge reads either answer as "already verified".
  t.same(await post(submit), { status: '0', message: 'NOTOK', result: 'Contract source code already verified' })
})

t.test('a single file with forge\'s viaIR=true compiles through the IR', async (t) => {
  const fields = {
    module: 'contract',
    action: 'verifysourcecode',
    contractaddress: throughIr.address,
    sourceCode: source,
    codeformat: 'solidity-single-file',
    contractname: 'VerifiedToken',
    compilerversion: BUNDLED_VERSION,
    optimizationUsed: '1',
    runs: '200',
    evmversion: 'paris',
    constructorArguements: args('Ir')
  }
  t.match(await waitForStatus((await postForm({ ...fields, viaIR: 'false' })).result), { result: 'Fail - Unable to verify' }, 'not through the IR: other code')
  t.same(await waitForStatus((await postForm({ ...fields, viaIR: 'true' })).result), { status: '1', message: 'OK', result: 'Pass - Verified' })
  t.match(await findVerifiedContract(db, throughIr.address), { compilerSettings: { viaIR: true } })
})

t.test('failures: Fail - Unable to verify with the reason, nothing stored; bad requests answered at once', async (t) => {
  const wrongArgs = await postForm({
    module: 'contract',
    action: 'verifysourcecode',
    contractaddress: third.address,
    sourceCode: JSON.stringify(input),
    codeformat: 'solidity-standard-json-input',
    contractname: 'src/VerifiedToken.sol:VerifiedToken',
    compilerversion: BUNDLED_VERSION,
    constructorArguements: args('Wrong')
  })
  const failed = await waitForStatus(wrongArgs.result)
  t.equal(failed.status, '0')
  t.equal(failed.result, 'Fail - Unable to verify')
  t.match(failed.message, /constructor arguments given/)
  const unavailable = await postForm({
    module: 'contract',
    action: 'verifysourcecode',
    contractaddress: third.address,
    sourceCode: source,
    codeformat: 'solidity-single-file',
    contractname: 'VerifiedToken',
    compilerversion: 'v0.8.19+commit.7dd6d404'
  })
  t.match(await waitForStatus(unavailable.result), { result: 'Fail - Unable to verify', message: /v0\.8\.19\+commit\.7dd6d404 is not available/ })
  t.equal(await findVerifiedContract(db, third.address), null)

  const base = { module: 'contract', action: 'verifysourcecode', contractaddress: third.address, contractname: 'X', compilerversion: BUNDLED_VERSION }
  t.match(await postForm({ ...base, sourceCode: '{"sources":', codeformat: 'solidity-standard-json-input' }), { status: '0', message: 'NOTOK', result: /not JSON/ })
  t.match(await postForm({ ...base, sourceCode: 'x', codeformat: 'vyper' }), { status: '0', message: 'NOTOK', result: /Unsupported codeformat/ })
  t.match(await postForm({ ...base, contractaddress: '0x12', sourceCode: 'x', codeformat: 'solidity-single-file' }), { status: '0', message: 'NOTOK', result: /Invalid contract address/ })
  t.same(await postForm({ module: 'contract', action: 'verifysourcecode' }), { status: '0', message: 'NOTOK', result: 'Query parameter \'contractaddress\' is required' })
  t.same(await api('module=contract&action=getabi&address=0x12'), { status: '0', message: 'NOTOK', result: 'Error! Invalid address format' })
  t.same(await api('module=contract&action=checkverifystatus&guid=nope'), { status: '0', message: 'NOTOK', result: 'Unknown UID' })
  const noModule = await fetch(`${url}/api`, { method: 'POST', body: new URLSearchParams({ action: 'getabi' }) })
  t.equal(noModule.status, 200, 'no module: HTTP 200, as Etherscan answers it')
  t.same(await noModule.json(), { status: '0', message: 'NOTOK', result: 'Error! Missing Or invalid Module name' })
})

t.test('getcontractcreation names the creator and creating transaction of up to 5 contracts', async (t) => {
  const creation = await api(`module=contract&action=getcontractcreation&contractaddresses=${first.address},${third.address.toUpperCase().replace('0X', '0x')}`)
  t.equal(creation.status, '1')
  t.match(creation.result, [
    { contractAddress: first.address, contractCreator: wallets[0]!.address.toLowerCase(), txHash: first.hash },
    { contractAddress: third.address, contractCreator: wallets[0]!.address.toLowerCase(), txHash: third.hash }
  ])
  t.same(await api(`module=contract&action=getcontractcreation&contractaddresses=${wallets[0]!.address}`), { status: '0', message: 'No data found', result: null })
  const six = Array.from({ length: 6 }, () => first.address).join(',')
  t.match(await api(`module=contract&action=getcontractcreation&contractaddresses=${six}`), { status: '0', message: 'NOTOK', result: /Maximum 5/ })
})

t.test('verifysourcecode of a contract linked after compiling: libraryname1/libraryaddress1 (single file) and settings.libraries (standard JSON) give a full match; another address fails', async (t) => {
  // Compiled under the file names the requests give (a single file is named for its contract), linked afterwards as Hardhat and forge link.
  const linkedSource = await readFixture('Linked.sol')
  const singleInput = standardInput({ 'ScaledCounter.sol': linkedSource })
  const library = await sender.deploy(compileStandard(singleInput, 'ScaledCounter.sol', 'Scale').bytecode)
  const link = (bytecode: string) => bytecode.replace(/__\$[0-9a-f]{34}\$__/g, library.address.slice(2))
  const single = await sender.deploy(link(compileStandard(singleInput, 'ScaledCounter.sol', 'ScaledCounter').bytecode))
  const jsonInput = standardInput({ 'src/Linked.sol': linkedSource })
  const standard = await sender.deploy(link(compileStandard(jsonInput, 'src/Linked.sol', 'ScaledCounter').bytecode))
  await waitForIndexed(app)

  const singleFields = (address: string) => ({ module: 'contract', action: 'verifysourcecode', contractaddress: address, sourceCode: linkedSource, codeformat: 'solidity-single-file', contractname: 'ScaledCounter', compilerversion: BUNDLED_VERSION, optimizationUsed: '1', runs: '200', evmversion: 'paris', libraryname1: 'Scale' })
  const wrong = await postForm({ ...singleFields(single.address), libraryaddress1: '0x' + '11'.repeat(20) })
  t.match(await waitForStatus(wrong.result), { status: '0', result: 'Fail - Unable to verify' }, 'another library address')
  t.equal(await findVerifiedContract(db, single.address), null)
  const right = await postForm({ ...singleFields(single.address), libraryaddress1: library.address })
  t.same(await waitForStatus(right.result), { status: '1', message: 'OK', result: 'Pass - Verified' })
  t.match(await findVerifiedContract(db, single.address), { matchType: 'full', externalLibraries: [{ name: 'ScaledCounter.sol:Scale', address: library.address }] })

  const named = { ...jsonInput, settings: { ...jsonInput.settings, libraries: { 'src/Linked.sol': { Scale: library.address } } } }
  const json = await postForm({ module: 'contract', action: 'verifysourcecode', contractaddress: standard.address, sourceCode: JSON.stringify(named), codeformat: 'solidity-standard-json-input', contractname: 'src/Linked.sol:ScaledCounter', compilerversion: BUNDLED_VERSION })
  t.same(await waitForStatus(json.result), { status: '1', message: 'OK', result: 'Pass - Verified' })
  t.match(await findVerifiedContract(db, standard.address), { matchType: 'full', externalLibraries: [{ name: 'src/Linked.sol:Scale', address: library.address }] })
  const [listedSource] = (await api(`module=contract&action=getsourcecode&address=${standard.address}`)).result
  t.equal(listedSource.Library, `Scale:${library.address.slice(2)}`, 'getsourcecode names the library')
})
