// A chain with token activity for the REST address and token tests: more
// than a page of ERC-20 tokens, of holders, of NFT ids and of coin balance
// changes; ERC-1155 single and batch transfers; a contract that calls
// tokens, creates a contract (an internal creation) and reverts. Transactions
// are signed locally and sent in batches, one batch per block or few.
import { join } from 'node:path'
import { Interface, Wallet, getCreateAddress, keccak256 } from 'ethers'
import type { FastifyInstance } from 'fastify'
import type { RpcClient } from '../../core/rpc/client.ts'
import { build } from '../helper.ts'
import { sealBlocks, sendRound, sign, writeFundedAlloc, writeFundedAllocFile } from './blocks.ts'
import { compileContract, TEST_TOKEN_SOURCE, type CompiledContract } from './contracts.ts'
import { buildOnTemplate, chainTemplate, cloneTemplate, withTeardowns } from './fixture-template.ts'
import { waitForIndexed } from './indexer.ts'

type Tap = { teardown (fn: () => unknown): void }

const fixture = (name: string) => new URL(`../fixtures/contracts/${name}.sol`, import.meta.url)

/** More than one page (50) of each list. */
export const TOKEN_COUNT = 55
export const NFT_COUNT = 55
/** Indexing this chain takes a few seconds, more on a loaded machine. */
export const INDEXED_TIMEOUT_MS = 60_000
const DEPLOY_GAS = 1_500_000n
/** Rounds of many deployments take several blocks: generous on a loaded machine. */
const ROUND_TIMEOUT_MS = 60_000
const CALL_GAS = 300_000n

export type TokenChain = {
  /** wallets[0]: deploys and keeps most. */
  deployer: Wallet
  holders: Wallet[]
  tokens: string[]
  nft: string
  multi: string
  caller: string
  /** The contract Caller.spawn() created: an internal creation. */
  child: string
  /** The logging contract of the ether rounds. */
  logger: string
  /** Caller.fail(): reverted. */
  revertedTransaction: string
  callerTransactions: string[]
  deployments: Map<string, string>
  abi: { token: Interface, nft: Interface, multi: Interface, caller: Interface }
  head: number
}

/** The wallets buildIndexedTokenChain funds: wallets[0] deploys, the rest hold (more than a page of holders). */
export const TOKEN_CHAIN_WALLETS = 60

export type IndexedTokenChain = { app: FastifyInstance, wallets: Wallet[], chain: TokenChain, head: number }

/** What a template keeps of its chain: the keys, the addresses and hashes (the ABIs come from the contracts). */
type TokenChainMeta = Omit<TokenChain, 'deployer' | 'holders' | 'abi' | 'deployments'> & { keys: string[], deployments: Array<[string, string]>, indexedHead: number }

/**
 * The token chain on a gateway of this file's own, indexed: a copy of the tap
 * run's template when there is one (see fixture-template.ts), else built here
 * from TOKEN_CHAIN_WALLETS funded wallets.
 */
export async function buildIndexedTokenChain (t: Tap): Promise<IndexedTokenChain> {
  const template = await chainTemplate('token', buildTokenTemplate)
  if (template === undefined) {
    const { wallets, allocFile } = await writeFundedAlloc(t, TOKEN_CHAIN_WALLETS)
    const { app } = await build(t, { GENESIS_ALLOC: allocFile })
    const chain = await buildTokenChain(app.geth.rpc, wallets)
    return { app, wallets, chain, head: await waitForIndexed(app, INDEXED_TIMEOUT_MS) }
  }
  const clone = await cloneTemplate(t, template)
  const { keys, deployments, indexedHead, ...rest } = clone.meta
  const wallets = keys.map((key) => new Wallet(key))
  const { app } = await buildOnTemplate(t, clone, wallets[0]!)
  const [deployer, ...holders] = wallets as [Wallet, ...Wallet[]]
  const chain = { ...rest, deployer, holders, deployments: new Map(deployments), abi: await tokenChainAbi() }
  const head = await waitForIndexed(app, INDEXED_TIMEOUT_MS)
  if (head !== indexedHead) throw new Error(`the token chain's copy is indexed to ${head}, its template to ${indexedHead}`)
  return { app, wallets, chain, head }
}

/** The template: the chain built on its data directory and database, indexed, then stopped. */
async function buildTokenTemplate (dataDir: string, databaseUrl: string): Promise<TokenChainMeta> {
  return await withTeardowns(async (t) => {
    const wallets = Array.from({ length: TOKEN_CHAIN_WALLETS }, () => Wallet.createRandom() as unknown as Wallet)
    await writeFundedAllocFile(join(dataDir, 'alloc.json'), wallets)
    const { app } = await buildOnTemplate(t, { dataDir, databaseUrl }, wallets[0]!)
    const { deployer, holders, abi, deployments, ...rest } = await buildTokenChain(app.geth.rpc, wallets)
    const indexedHead = await waitForIndexed(app, INDEXED_TIMEOUT_MS)
    return { ...rest, keys: wallets.map((w) => w.privateKey), deployments: [...deployments], indexedHead }
  })
}

async function compileTokenChainContracts (): Promise<CompiledContract[]> {
  return await Promise.all([
    compileContract(TEST_TOKEN_SOURCE, 'TestToken'), compileContract(fixture('TestNft'), 'TestNft'),
    compileContract(fixture('TestMulti'), 'TestMulti'), compileContract(fixture('Caller'), 'Caller')
  ])
}

async function tokenChainAbi (): Promise<TokenChain['abi']> {
  const [erc20, erc721, erc1155, callerCode] = await compileTokenChainContracts()
  return {
    token: new Interface(erc20!.abi as never),
    nft: new Interface(erc721!.abi as never),
    multi: new Interface(erc1155!.abi as never),
    caller: new Interface(callerCode!.abi as never)
  }
}

function deployData (compiled: CompiledContract, args: unknown[] = []): string {
  const iface = new Interface(compiled.abi as never)
  return compiled.bytecode + iface.encodeDeploy(args).slice(2)
}

/**
 * wallets[0] deploys everything and keeps most of it; wallets[1..] receive
 * token 0, NFTs and ERC-1155 units; wallets[0] and [1] then trade ether for
 * 60 more blocks (coin balance history, blocks validated).
 */
export async function buildTokenChain (rpc: RpcClient, wallets: Wallet[]): Promise<TokenChain> {
  const [deployer, ...holders] = wallets as [Wallet, ...Wallet[]]
  let nonce = Number(await rpc.call<string>('eth_getTransactionCount', [deployer.address, 'pending']))
  const [erc20, erc721, erc1155, callerCode] = await compileTokenChainContracts() as [CompiledContract, CompiledContract, CompiledContract, CompiledContract]
  const abi = await tokenChainAbi()
  const deployments = new Map<string, string>()
  const round = async (raw: string[]) => await sendRound(rpc, raw, ROUND_TIMEOUT_MS)
  const deploy = async (data: string): Promise<{ address: string, raw: string }> => {
    const address = getCreateAddress({ from: deployer.address, nonce })
    const raw = await sign(deployer, { data, gasLimit: DEPLOY_GAS, nonce: nonce++ })
    return { address, raw }
  }
  const send = async (to: string, data: string, value = 0n, from = deployer, fromNonce?: number) =>
    await sign(from, { to, data, value, gasLimit: CALL_GAS, nonce: fromNonce ?? nonce++ })

  const created = [
    ...await Promise.all(Array.from({ length: TOKEN_COUNT }, async (_, i) => await deploy(deployData(erc20, [`Token ${i}`, `TK${i}`, 10n ** 24n + BigInt(i)])))),
    await deploy(deployData(erc721)), await deploy(deployData(erc1155)), await deploy(deployData(callerCode))
  ]
  await round(created.map((c) => c.raw))
  // A signed transaction's hash is the keccak-256 of its envelope.
  for (const c of created) deployments.set(c.address, keccak256(c.raw))
  const tokens = created.slice(0, TOKEN_COUNT).map((c) => c.address)
  const [nft, multi, caller] = created.slice(TOKEN_COUNT).map((c) => c.address) as [string, string, string]

  // Token 0 to every holder (more than a page of holders), and some to the Caller contract.
  await round([
    ...await Promise.all(holders.map(async (h, i) => await send(tokens[0]!, abi.token.encodeFunctionData('transfer', [h.address, BigInt(1000 + i)])))),
    await send(tokens[0]!, abi.token.encodeFunctionData('transfer', [caller, 10n ** 6n])),
    await send(tokens[1]!, abi.token.encodeFunctionData('transfer', [holders[0]!.address, 5n]))
  ])
  // NFT ids 1..NFT_COUNT: odd ones to the deployer, even ones to holder 0; ERC-1155 ids 7 and 8.
  await round([
    ...await Promise.all(Array.from({ length: NFT_COUNT }, async (_, i) =>
      await send(nft, abi.nft.encodeFunctionData('mint', [i % 2 === 0 ? deployer.address : holders[0]!.address, BigInt(i + 1)])))),
    await send(multi, abi.multi.encodeFunctionData('mint', [deployer.address, 7n, 50n])),
    await send(multi, abi.multi.encodeFunctionData('mint', [deployer.address, 8n, 5n])),
    await send(multi, abi.multi.encodeFunctionData('mint', [deployer.address, 9n, 1n]))
  ])
  const child = getCreateAddress({ from: caller, nonce: 1 })
  const callerTransactions = [
    await send(caller, abi.caller.encodeFunctionData('forward', [tokens[0], holders[1]!.address, 77n])),
    await send(caller, abi.caller.encodeFunctionData('spawn')),
    await send(caller, '0x', 10n ** 15n),
    await send(caller, abi.caller.encodeFunctionData('payOut', [holders[2]!.address]))
  ]
  const revertedTransaction = await send(caller, abi.caller.encodeFunctionData('fail'))
  await round([
    await send(nft, abi.nft.encodeFunctionData('burn', [3n])),
    await send(multi, abi.multi.encodeFunctionData('safeTransferFrom', [deployer.address, holders[0]!.address, 7n, 20n, '0x'])),
    await send(multi, abi.multi.encodeFunctionData('safeBatchTransferFrom', [deployer.address, holders[1]!.address, [7n, 8n], [10n, 5n], '0x'])),
    ...callerTransactions, revertedTransaction
  ])
  // The holder sends one NFT on: its own nonce.
  const holderNonce = Number(await rpc.call<string>('eth_getTransactionCount', [holders[0]!.address, 'pending']))
  await round([await send(nft, abi.nft.encodeFunctionData('transferFrom', [holders[0]!.address, holders[3]!.address, 2n]), 0n, holders[0], holderNonce)])
  const sealed = await sealBlocks({ rpc, wallets: [deployer, holders[0]!], rounds: 60 })
  return {
    deployer,
    holders,
    tokens,
    nft,
    multi,
    caller,
    child,
    logger: sealed.logger,
    revertedTransaction: keccak256(revertedTransaction),
    callerTransactions: callerTransactions.map((raw) => keccak256(raw)),
    deployments,
    abi,
    head: sealed.head
  }
}
