// A real `hardhat verify` (Hardhat 2, @nomicfoundation/hardhat-verify) against
// the gateway, as a user runs it: the project in test/fixtures/hardhat-project
// compiles with the solc package's bundled build (no download), the contract,
// a library and a contract linked to it are deployed on the gateway's chain
// and `npx hardhat verify --network gateway <address> <args>` talks to /api
// as to a custom chain; each is a full match.
import t from 'tap'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { AbiCoder, Interface } from 'ethers'
import { build } from '../../helper.ts'
import { writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { BUNDLED_VERSION, createSender } from '../../support/verify.ts'
import { findVerifiedContract } from '../../../core/verify/index.ts'
import { createApiKey } from '../../../core/api-keys/store.ts'

const PROJECT = fileURLToPath(new URL('../../fixtures/hardhat-project/', import.meta.url))
const GREETING = 'Hello from Hardhat'
const CREATED_WITH = 42n

const out = await mkdtemp(join(tmpdir(), 'tg-hardhat-'))
t.teardown(async () => await rm(out, { recursive: true, force: true }))
// Hardhat's global cache (where it would download compilers) lives in `out` too, to be looked at.
const hardhatEnv = { TG_HARDHAT_OUT: out, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', XDG_CACHE_HOME: join(out, 'xdg-cache') }
const hardhat = async (args: string[], env: Record<string, string> = {}) =>
  await execa('npx', ['hardhat', ...args], { cwd: PROJECT, env: { ...hardhatEnv, ...env }, reject: false, timeout: 240_000 })

// Compiling takes as long as starting the gateway: both at once.
const [compiled, { wallets, allocFile }] = await Promise.all([hardhat(['compile']), writeFundedAlloc(t, 1)])
if (compiled.exitCode !== 0) throw new Error(`hardhat compile failed: ${compiled.stderr}`)
const { app, url } = await build(t, { GENESIS_ALLOC: allocFile })
const artifact = JSON.parse(await readFile(join(out, 'artifacts/contracts/Greeter.sol/Greeter.json'), 'utf8')) as { abi: unknown[], bytecode: string }
const greeter = new Interface(artifact.abi as string[])
const sender = createSender(app.geth.rpc, wallets[0]!)
const constructorArgs = AbiCoder.defaultAbiCoder().encode(['string', 'uint256'], [GREETING, CREATED_WITH]).slice(2)
const deployed = await sender.deploy(artifact.bytecode + constructorArgs)
const greet = await sender.send(deployed.address, greeter.encodeFunctionData('greet', ['hi']))
// A library and a contract linked to it, as hardhat-ethers' deployContract links it: the placeholders replaced by the library's address.
type LinkedArtifact = { bytecode: string, linkReferences: Record<string, Record<string, Array<{ start: number, length: number }>>> }
const readArtifact = async (name: string) => JSON.parse(await readFile(join(out, `artifacts/contracts/Counted.sol/${name}.json`), 'utf8')) as LinkedArtifact
const [doublerArtifact, countedArtifact] = await Promise.all([readArtifact('Doubler'), readArtifact('Counted')])
const doubler = await sender.deploy(doublerArtifact.bytecode)
let countedCode = countedArtifact.bytecode
for (const { start, length } of countedArtifact.linkReferences['contracts/Counted.sol']!.Doubler!) {
  countedCode = countedCode.slice(0, 2 + start * 2) + doubler.address.slice(2) + countedCode.slice(2 + (start + length) * 2)
}
const counted = await sender.deploy(countedCode)
await waitForIndexed(app)
const get = async (path: string) => (await app.inject({ method: 'GET', url: path })).json()
// hardhat-verify sends its key with every request, and the gateway refuses one it does not know.
const { key } = await createApiKey(app.db.knex, { label: 'hardhat', tier: 'public' })
const EXPLORER_URL = 'http://explorer.test:3000'
const gatewayEnv = { TG_GATEWAY_URL: url, TG_API_KEY: key, TG_EXPLORER_URL: EXPLORER_URL }

t.test('hardhat compile used the solc package\'s compiler: nothing was downloaded', async (t) => {
  t.match(compiled.stdout, /Compiled 2 Solidity files successfully \(evm target: paris\)/)
  t.notOk(existsSync(join(out, 'xdg-cache', 'hardhat-nodejs')), 'Hardhat\'s compilers cache was never made')
  const [buildInfoFile] = await readdir(join(out, 'artifacts/build-info'))
  const buildInfo = JSON.parse(await readFile(join(out, 'artifacts/build-info', buildInfoFile!), 'utf8'))
  t.equal('v' + buildInfo.solcLongVersion, BUNDLED_VERSION)
})

t.test('npx hardhat verify --network gateway verifies the contract; the explorer shows it verified and decodes its calls', async (t) => {
  t.equal((await get(`/api/v2/smart-contracts/${deployed.address}`)).is_verified, undefined, 'not verified before')
  const run = await hardhat(['verify', '--network', 'gateway', deployed.address, GREETING, String(CREATED_WITH)], gatewayEnv)
  t.equal(run.exitCode, 0, `hardhat verify exits 0 ${run.exitCode === 0 ? '' : run.stderr}`)
  t.match(run.stdout, /Successfully verified contract Greeter on the block explorer/)
  t.match(run.stdout, `${EXPLORER_URL}/address/${deployed.address}#code`, 'the browserURL link: the explorer front end\'s page, not the gateway\'s')

  const detail = await get(`/api/v2/smart-contracts/${deployed.address}`)
  t.match(detail, {
    is_verified: true,
    is_fully_verified: true,
    name: 'Greeter',
    file_path: 'contracts/Greeter.sol',
    compiler_version: BUNDLED_VERSION,
    evm_version: 'paris',
    optimization_enabled: true,
    optimization_runs: 200,
    constructor_args: '0x' + constructorArgs
  })
  t.same(detail.decoded_constructor_args.map(([value, input]: [unknown, { name: string }]) => [value, input.name]), [[GREETING, 'greeting_'], ['42', 'createdWith_']])
  t.match(await findVerifiedContract(app.db.knex, deployed.address), { matchType: 'full', verificationMethod: 'etherscan' })
  t.match((await get(`/api/v2/transactions/${greet}`)).decoded_input, { method_call: 'greet(string next)', parameters: [{ name: 'next', value: 'hi' }] })
})

t.test('a second hardhat verify is told the contract is already verified', async (t) => {
  const run = await hardhat(['verify', '--network', 'gateway', deployed.address, GREETING, String(CREATED_WITH)], gatewayEnv)
  t.equal(run.exitCode, 0, `hardhat verify exits 0 ${run.exitCode === 0 ? '' : run.stderr}`)
  t.match(run.stdout, /has already been verified on the block explorer/)
})

t.test('hardhat verify verifies a library and a contract linked to it, both fully', async (t) => {
  // hardhat-verify names the detected library in the compiler settings, which the deployed code was not compiled with.
  for (const [address, name] of [[doubler.address, 'Doubler'], [counted.address, 'Counted']] as const) {
    const run = await hardhat(['verify', '--network', 'gateway', address], gatewayEnv)
    t.equal(run.exitCode, 0, `hardhat verify ${name} exits 0 ${run.exitCode === 0 ? '' : run.stdout + run.stderr}`)
    t.match(run.stdout, new RegExp(`Successfully verified contract ${name} on the block explorer`))
    t.match(await findVerifiedContract(app.db.knex, address), { name, matchType: 'full', verificationMethod: 'etherscan', filePath: 'contracts/Counted.sol' }, `${name}: a full match`)
  }
  t.match((await get(`/api/v2/smart-contracts/${counted.address}`)).external_libraries, [{ name: 'contracts/Counted.sol:Doubler', address_hash: new RegExp(doubler.address.slice(2), 'i') }])
})
