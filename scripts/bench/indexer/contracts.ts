// The contracts the generated chain exercises, compiled with the solc package
// (bundled compiler, offline) for paris: clique Geth 1.13 has no Shanghai, so
// PUSH0 must not appear. The sources are the test fixtures, read at run time.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { basename } from 'node:path'

// solc ships no types (the tests declare its module in test/support); the
// build of scripts/ must not depend on test/, so it is typed here.
const solc = createRequire(import.meta.url)('solc') as { compile (input: string): string }

export type CompiledContract = { abi: unknown[], bytecode: string }

const FIXTURES = new URL('../../../test/fixtures/contracts/', import.meta.url)
export const TEST_TOKEN_SOURCE = new URL('TestToken.sol', FIXTURES)
export const CALLER_SOURCE = new URL('Caller.sol', FIXTURES)

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
