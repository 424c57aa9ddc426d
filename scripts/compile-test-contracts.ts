// npm run compile:test-contracts: compiles every test contract (test/fixtures/contracts/*.sol) with the solc
// package for paris and writes the result beside it as <Name>.json, which the
// tests load instead of compiling at run time. Run it after editing a .sol:
// test/scripts/compile-test-contracts.test.ts recompiles them all and fails on any drift.
import { writeFile } from 'node:fs/promises'
import { CONTRACTS_DIR, compiledContractFile, listContractSources } from './lib/test-contracts.ts'

for (const source of await listContractSources()) {
  const file = await compiledContractFile(source)
  await writeFile(new URL(source.replace(/\.sol$/, '.json'), CONTRACTS_DIR), JSON.stringify(file, null, 2) + '\n')
  process.stdout.write(`${source}: ${Object.keys(file.contracts).join(', ')}\n`)
}
