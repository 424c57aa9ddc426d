// Contracts for the verification tests: standard JSON inputs of the
// fixtures, compiled here with the solc package (as a user's tool would) and
// deployed by one wallet, one transaction per block.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { AbiCoder, Interface, getCreateAddress, keccak256, type Wallet } from 'ethers'
import type { RpcClient } from '../../core/rpc/client.ts'
import { sendRound, sign } from './blocks.ts'

const solc = createRequire(import.meta.url)('solc') as { compile (input: string): string, version (): string }

export const fixturePath = (name: string) => new URL(`../fixtures/contracts/${name}`, import.meta.url)
export const readFixture = async (name: string): Promise<string> => await readFile(fixturePath(name), 'utf8')

/** The bundled compiler in Blockscout's spelling. */
export const BUNDLED_VERSION = 'v' + solc.version().replace(/\.Emscripten.*$/, '')

export type StandardInput = { language: 'Solidity', sources: Record<string, { content: string }>, settings: Record<string, unknown> }

export function standardInput (files: Record<string, string>, settings: Record<string, unknown> = {}): StandardInput {
  return {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(files).map(([path, content]) => [path, { content }])),
    settings: { evmVersion: 'paris', optimizer: { enabled: true, runs: 200 }, ...settings, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } }
  }
}

export type Compiled = { abi: Interface, bytecode: string }

/** Compiles and returns `path:name`'s ABI and creation code (still with link placeholders, if any). */
export function compileStandard (input: StandardInput, path: string, name: string): Compiled {
  const output = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'))
  const contract = output.contracts[path][name]
  return { abi: new Interface(contract.abi), bytecode: '0x' + contract.evm.bytecode.object }
}

/** Sends transactions from one wallet, one block each; deploy answers the new address. */
export function createSender (rpc: RpcClient, wallet: Wallet) {
  let nonce: number | undefined
  const next = async () => (nonce ??= Number(await rpc.call<string>('eth_getTransactionCount', [wallet.address, 'pending'])))
  return {
    async deploy (data: string): Promise<{ address: string, hash: string }> {
      const n = await next()
      nonce = n + 1
      const raw = await sign(wallet, { data, gasLimit: 5_000_000n, nonce: n })
      await sendRound(rpc, [raw], 60_000)
      const receipt = await rpc.call<{ status: string, transactionHash: string }>('eth_getTransactionReceipt', [keccak256(raw)])
      if (receipt.status !== '0x1') throw new Error('deployment failed')
      return { address: getCreateAddress({ from: wallet.address, nonce: n }).toLowerCase(), hash: receipt.transactionHash }
    },
    async send (to: string, data: string): Promise<string> {
      const n = await next()
      nonce = n + 1
      const raw = await sign(wallet, { to, data, gasLimit: 3_000_000n, nonce: n })
      await sendRound(rpc, [raw], 60_000)
      return keccak256(raw)
    }
  }
}

export type Sender = ReturnType<typeof createSender>

/**
 * Proxies.sol deployed as the verification tests use it: Counter (an
 * implementation), an EIP-1967 proxy to it, a factory and the two children
 * it made (bytecode twins), and an EIP-1167 clone of Counter.
 */
export async function deployProxies (sender: Sender) {
  const source = await readFixture('Proxies.sol')
  const input = standardInput({ 'Proxies.sol': source })
  const [counterCode, proxyCode, factoryCode] = ['Counter', 'SlotProxy', 'Factory'].map((name) => compileStandard(input, 'Proxies.sol', name)) as [Compiled, Compiled, Compiled]
  const counter = await sender.deploy(counterCode.bytecode)
  const proxy = await sender.deploy(proxyCode.bytecode + AbiCoder.defaultAbiCoder().encode(['address'], [counter.address]).slice(2))
  const factory = await sender.deploy(factoryCode.bytecode)
  await sender.send(factory.address, factoryCode.abi.encodeFunctionData('make'))
  await sender.send(factory.address, factoryCode.abi.encodeFunctionData('make'))
  await sender.send(factory.address, factoryCode.abi.encodeFunctionData('clone', [counter.address]))
  // A contract's nonce starts at 1 (EIP-161).
  const [child1, child2, clone] = [1, 2, 3].map((nonce) => getCreateAddress({ from: factory.address, nonce }).toLowerCase()) as [string, string, string]
  return { source, input, counterCode, counter, proxy, factory, child1, child2, clone }
}
