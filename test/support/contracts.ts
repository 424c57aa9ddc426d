// Compiles test contracts with the solc package (bundled compiler, offline)
// for paris: clique Geth 1.13 has no Shanghai, so PUSH0 must not appear.
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import solc from 'solc'

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

export const TEST_TOKEN_SOURCE = new URL('../fixtures/contracts/TestToken.sol', import.meta.url)
