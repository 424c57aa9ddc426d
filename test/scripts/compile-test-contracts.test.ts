// The committed test contracts (test/fixtures/contracts/*.json) are what solc
// makes of their sources today: recompiled here, compared in full.
import t from 'tap'
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { compileContract as compileWithSolc } from '../../scripts/lib/compile-contract.ts'
import { CONTRACTS_DIR, compiledContractFile, listContractSources } from '../../scripts/lib/test-contracts.ts'
import { compileContract } from '../support/contracts.ts'

const sources = await listContractSources()
const readJson = async (url: URL) => JSON.parse(await readFile(url, 'utf8').catch(() => 'null'))

t.test('every test contract source has committed JSON equal to a fresh solc compile for paris', async (t) => {
  t.ok(sources.length >= 6, `${sources.length} sources`)
  for (const source of sources) {
    const committed = await readJson(new URL(source.replace(/\.sol$/, '.json'), CONTRACTS_DIR))
    t.same(committed, await compiledContractFile(source), `${source}: run scripts/compile-test-contracts.ts after editing it`)
    t.equal(committed?.evmVersion, 'paris')
  }
})

t.test('compileContract() hands out the committed output of a fixture source', async (t) => {
  const committed = await readJson(new URL('TestToken.json', CONTRACTS_DIR))
  t.same(await compileContract(new URL('TestToken.sol', CONTRACTS_DIR), 'TestToken'), committed.contracts.TestToken)
})

t.test('compileContract() compiles a source edited since its JSON was written, with solc', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tg-contracts-'))
  t.teardown(async () => await rm(dir, { recursive: true, force: true }))
  await copyFile(new URL('TestToken.json', CONTRACTS_DIR), join(dir, 'TestToken.json'))
  const source = (await readFile(new URL('TestToken.sol', CONTRACTS_DIR), 'utf8')) + '\n// edited\n'
  await writeFile(join(dir, 'TestToken.sol'), source)
  const edited = pathToFileURL(join(dir, 'TestToken.sol'))
  const compiled = await compileContract(edited, 'TestToken')
  const committed = (await readJson(new URL('TestToken.json', CONTRACTS_DIR))).contracts.TestToken
  t.not(compiled.bytecode, committed.bytecode, 'not the stale JSON (the metadata hash covers the source)')
  t.same(compiled, await compileWithSolc(edited, 'TestToken'))
})
