// Compiles Solidity with the solc package (bundled compiler, offline) for
// paris: clique Geth 1.13 has no Shanghai, so PUSH0 must not appear. Used by
// the tests and the benchmark's chain generator.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { basename } from 'node:path'

type Solc = { compile (input: string): string, version (): string }
let loaded: Solc | undefined
// solc ships no types and only compile() and version() are used: typed here. Loaded
// on first use: its bundled compiler takes seconds of CPU to load, and the tests
// import this file but mostly read committed output (test/support/contracts.ts).
const solc = (): Solc => (loaded ??= createRequire(import.meta.url)('solc') as Solc)

/** The compiler's full version, as the committed test contracts record it. */
export const solcVersion = (): string => solc().version()

export type CompiledContract = { abi: unknown[], bytecode: string }

/** Every contract a source file defines, by name. */
export async function compileSolidity (file: URL): Promise<Record<string, CompiledContract>> {
  const source = await readFile(file, 'utf8')
  const name = basename(file.pathname)
  const input = {
    language: 'Solidity',
    sources: { [name]: { content: source } },
    settings: {
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } }
    }
  }
  const output = JSON.parse(solc().compile(JSON.stringify(input)))
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'))
  const contracts = output.contracts[name] as Record<string, { abi: unknown[], evm: { bytecode: { object: string } } }>
  return Object.fromEntries(Object.entries(contracts).map(([contractName, c]) => [contractName, { abi: c.abi, bytecode: '0x' + c.evm.bytecode.object }]))
}

export async function compileContract (file: URL, contractName: string): Promise<CompiledContract> {
  const contract = (await compileSolidity(file))[contractName]
  if (contract === undefined) throw new Error(`${basename(file.pathname)} defines no contract ${contractName}`)
  return contract
}
