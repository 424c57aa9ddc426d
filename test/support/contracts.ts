// Test contracts, compiled for paris (see scripts/lib/compile-contract.ts).
// The compiler's output is committed beside each source (scripts/compile-test-contracts.ts
// writes it) and read from there: compiling with solc-js costs seconds of CPU a file.
// test/scripts/compile-test-contracts.test.ts recompiles every source and compares.
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { compileContract as compileWithSolc, type CompiledContract } from '../../scripts/lib/compile-contract.ts'
import { sourceSha256, type CompiledContractFile } from '../../scripts/lib/test-contracts.ts'

export type { CompiledContract }

export const TEST_TOKEN_SOURCE = new URL('../fixtures/contracts/TestToken.sol', import.meta.url)

const committed = new Map<string, Promise<CompiledContractFile | undefined>>()

/** The JSON committed beside a source, unless it is missing or was compiled from other text. */
async function readCommitted (file: URL): Promise<CompiledContractFile | undefined> {
  const json = new URL(basename(file.pathname).replace(/\.sol$/, '.json'), file)
  const compiled = JSON.parse(await readFile(json, 'utf8').catch(() => 'null')) as CompiledContractFile | null
  return compiled !== null && compiled.sourceSha256 === await sourceSha256(file) ? compiled : undefined
}

/**
 * The contract `contractName` of a Solidity file: the compiler output
 * committed beside it (<Name>.json), or solc's when the source has none or was edited
 * since (so an edited contract is still tested as written; the drift test fails).
 */
export async function compileContract (file: URL, contractName: string): Promise<CompiledContract> {
  let entry = committed.get(file.href)
  if (entry === undefined) committed.set(file.href, entry = readCommitted(file))
  return (await entry)?.contracts[contractName] ?? await compileWithSolc(file, contractName)
}
