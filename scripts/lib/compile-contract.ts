// Compiles Solidity with the solc package (bundled compiler, offline) for
// paris: clique Geth 1.13 has no Shanghai, so PUSH0 must not appear. Used by
// the tests and the benchmark's chain generator.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { basename } from 'node:path'

// solc ships no types and only compile() is used: typed here.
const solc = createRequire(import.meta.url)('solc') as { compile (input: string): string }

export type CompiledContract = { abi: unknown[], bytecode: string }

export async function compileContract (file: URL, contractName: string): Promise<CompiledContract> {
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
  const output = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'))
  const contract = output.contracts[name][contractName]
  return { abi: contract.abi, bytecode: '0x' + contract.evm.bytecode.object }
}
