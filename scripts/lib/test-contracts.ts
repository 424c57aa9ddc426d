// The test contracts' committed compiler output: test/fixtures/contracts/<Name>.json
// beside <Name>.sol, written by scripts/compile-test-contracts.ts. The source's
// hash is kept in it so a loader can tell an edited .sol from its stale JSON.
import { createHash } from 'node:crypto'
import { readFile, readdir } from 'node:fs/promises'
import { compileSolidity, solcVersion, type CompiledContract } from './compile-contract.ts'

export const CONTRACTS_DIR = new URL('../../test/fixtures/contracts/', import.meta.url)

export type CompiledContractFile = {
  source: string
  /** sha256 of the .sol text compiled. */
  sourceSha256: string
  solc: string
  evmVersion: 'paris'
  contracts: Record<string, CompiledContract>
}

export async function listContractSources (): Promise<string[]> {
  return (await readdir(CONTRACTS_DIR)).filter((name) => name.endsWith('.sol')).sort()
}

export async function sourceSha256 (file: URL): Promise<string> {
  return createHash('sha256').update(await readFile(file)).digest('hex')
}

/** What scripts/compile-test-contracts.ts writes for one source file (e.g. 'Caller.sol'). */
export async function compiledContractFile (source: string): Promise<CompiledContractFile> {
  const file = new URL(source, CONTRACTS_DIR)
  return { source, sourceSha256: await sourceSha256(file), solc: solcVersion(), evmVersion: 'paris', contracts: await compileSolidity(file) }
}
