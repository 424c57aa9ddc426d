// A real `forge verify-contract` (Foundry 1.7 from the @foundry-rs/forge
// package) against the gateway's Etherscan-style /api, as a user runs it:
// the project in test/fixtures/foundry-project, copied to a temporary
// directory, is built by forge and deployed on the gateway's chain (a
// library, then a contract linked to it with constructor arguments), then
// each is verified with --verifier blockscout --verifier-url <gateway>/api.
// forge wants a native solc and would download it; nothing is downloaded
// here: test/support/solc-wrapper.cjs (over the solc package) answers as the
// binary does, given to `forge build` with --use and, for verify-contract
// (which looks its compiler up among svm's installs), placed where svm
// keeps 0.8.28 in a temporary HOME. FOUNDRY_OFFLINE keeps forge off the
// network.
import t from 'tap'
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { AbiCoder } from 'ethers'
import { build } from '../../helper.ts'
import { writeFundedAlloc } from '../../support/blocks.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { BUNDLED_VERSION, createSender } from '../../support/verify.ts'
import { findVerifiedContract } from '../../../core/verify/index.ts'
import { createApiKey } from '../../../core/api-keys/store.ts'

const FIXTURE = fileURLToPath(new URL('../../fixtures/foundry-project/', import.meta.url))
const WRAPPER = fileURLToPath(new URL('../../support/solc-wrapper.cjs', import.meta.url))
const FORGE = fileURLToPath(new URL('../../../node_modules/.bin/forge', import.meta.url))
/** 0.8.28+commit.7893614a: what forge is told to verify with (its build, so forge need not look it up on solc-bin). */
const SOLC_LONG = BUNDLED_VERSION.slice(1)
const SOLC = SOLC_LONG.split('+')[0]!
const LABEL = 'tally'
const START = 7n

const work = await mkdtemp(join(tmpdir(), 'tg-forge-'))
t.teardown(async () => await rm(work, { recursive: true, force: true }))
const project = join(work, 'project')
const home = join(work, 'home')
await cp(FIXTURE, project, { recursive: true })
// svm's layout: forge verify-contract takes its compiler from there, and would download it otherwise.
await mkdir(join(home, '.svm', SOLC), { recursive: true })
await symlink(WRAPPER, join(home, '.svm', SOLC, `solc-${SOLC}`))
const forgeEnv = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share'), FOUNDRY_OFFLINE: 'true', FOUNDRY_DISABLE_NIGHTLY_WARNING: '1' }
const forge = async (args: string[], env: Record<string, string> = {}) =>
  await execa(FORGE, args, { cwd: project, env: { ...forgeEnv, ...env }, reject: false, timeout: 240_000 })

const [built, { wallets, allocFile }] = await Promise.all([forge(['build', '--use', WRAPPER]), writeFundedAlloc(t, 1)])
if (built.exitCode !== 0) throw new Error(`forge build failed: ${built.stdout}${built.stderr}`)
// Limits on: the gateway checks API keys, and refuses one it does not know.
const { app, url } = await build(t, { GENESIS_ALLOC: allocFile, RATE_LIMIT_ENABLED: 'true' })
type Artifact = { bytecode: { object: string, linkReferences: Record<string, Record<string, Array<{ start: number, length: number }>>> } }
const readArtifact = async (name: string) => JSON.parse(await readFile(join(project, `out/Tally.sol/${name}.json`), 'utf8')) as Artifact
const [tripler, tally] = await Promise.all([readArtifact('Tripler'), readArtifact('Tally')])
const sender = createSender(app.geth.rpc, wallets[0]!)
const library = await sender.deploy(tripler.bytecode.object)
let tallyCode = tally.bytecode.object
for (const { start, length } of tally.bytecode.linkReferences['src/Tally.sol']!.Tripler!) {
  tallyCode = tallyCode.slice(0, 2 + start * 2) + library.address.slice(2) + tallyCode.slice(2 + (start + length) * 2)
}
const constructorArgs = AbiCoder.defaultAbiCoder().encode(['string', 'uint256'], [LABEL, START]).slice(2)
const linked = await sender.deploy(tallyCode + constructorArgs)
await waitForIndexed(app)
const { key } = await createApiKey(app.db.knex, { label: 'forge', tier: 'public' })

/**
 * forge verify-contract as docs/verification.md shows it. --verifier
 * blockscout with --chain sends no API key of its own (--verifier etherscan
 * sends one only without --chain, and then calls the chain mainnet): the key
 * rides in the URL, where the gateway reads apikey. forge's build cache
 * names the version without its commit, which forge would then look up on
 * solc-bin: an empty cache directory for this command keeps it to
 * --compiler-version.
 */
const verify = async (address: string, contract: string, extra: string[] = [], apiKey = key) => await forge([
  'verify-contract', address, contract, '--root', project, '--chain', '793788', '--compiler-version', SOLC_LONG,
  '--verifier', 'blockscout', '--verifier-url', `${url}/api?apikey=${apiKey}`, '--watch', '--retries', '30', '--delay', '1', ...extra
], { FOUNDRY_CACHE_PATH: join(work, 'verify-cache') })

t.test('forge build used the wrapper: the solc package\'s compiler, nothing downloaded', async (t) => {
  t.match(built.stdout, /Compiler run successful/)
  t.match(JSON.parse(await readFile(join(project, 'out/Tally.sol/Tally.json'), 'utf8')).metadata, { compiler: { version: SOLC_LONG } })
})

t.test('forge sends the API key: one the gateway does not know is refused, nothing verified', async (t) => {
  const run = await verify(library.address, 'src/Tally.sol:Tripler', [], 'tg_' + 'x'.repeat(32))
  t.notMatch(run.stdout, /Contract successfully verified/)
  t.match(run.stdout + run.stderr, /401|API key/i, 'the gateway\'s refusal')
  t.equal(await findVerifiedContract(app.db.knex, library.address), null)
})

t.test('forge verify-contract verifies a library, fully', async (t) => {
  const run = await verify(library.address, 'src/Tally.sol:Tripler')
  t.equal(run.exitCode, 0, `forge verify-contract exits 0 ${run.exitCode === 0 ? '' : run.stdout + run.stderr}`)
  t.match(run.stdout, /Contract successfully verified/)
  t.match(await findVerifiedContract(app.db.knex, library.address), { name: 'Tripler', matchType: 'full', verificationMethod: 'etherscan', filePath: 'src/Tally.sol' })
})

t.test('forge verify-contract verifies a contract linked to it, with --libraries and constructor arguments, fully', async (t) => {
  const run = await verify(linked.address, 'src/Tally.sol:Tally', ['--constructor-args', '0x' + constructorArgs, '--libraries', `src/Tally.sol:Tripler:${library.address}`])
  t.equal(run.exitCode, 0, `forge verify-contract exits 0 ${run.exitCode === 0 ? '' : run.stdout + run.stderr}`)
  t.match(run.stdout, /Contract successfully verified/)
  t.match(await findVerifiedContract(app.db.knex, linked.address), { name: 'Tally', matchType: 'full', constructorArguments: '0x' + constructorArgs })
  const detail = (await app.inject({ method: 'GET', url: `/api/v2/smart-contracts/${linked.address}` })).json()
  t.match(detail, { is_fully_verified: true, decoded_constructor_args: [[LABEL, { name: 'label_' }], ['7', { name: 'start' }]] })
  t.same(detail.external_libraries.map((l: { name: string, address_hash: string }) => [l.name, l.address_hash.toLowerCase()]), [['src/Tally.sol:Tripler', library.address]])
})

t.test('a second forge verify-contract is told it is already verified', async (t) => {
  const run = await verify(library.address, 'src/Tally.sol:Tripler')
  t.equal(run.exitCode, 0, run.stdout + run.stderr)
  t.match(run.stdout + run.stderr, /already verified/i)
})
