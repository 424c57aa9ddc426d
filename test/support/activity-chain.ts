// One chain with every kind of activity the explorer lists show: coin
// transfers, contract creations (one by a contract), ERC-20, ERC-721 and
// ERC-1155 transfers (a batch of more than a page), internal calls (more than
// a page in one transaction, with logs), and a reverted transaction.
import { Contract, ContractFactory, JsonRpcProvider, Wallet, type TransactionReceipt } from 'ethers'
import type { FastifyInstance } from 'fastify'
import { build } from '../helper.ts'
import { join } from 'node:path'
import { restartSealing, writeFundedAlloc, writeFundedAllocFile } from './blocks.ts'
import { waitForReceipt } from './chain.ts'
import { compileContract, TEST_TOKEN_SOURCE } from './contracts.ts'
import { waitForIndexed } from './indexer.ts'
import { buildOnTemplate, chainTemplate, cloneTemplate, withTeardowns } from './fixture-template.ts'

type Tap = { teardown (fn: () => unknown): void }

const fixture = (name: string) => new URL(`../fixtures/contracts/${name}.sol`, import.meta.url)
/** More than a page: lists built on it need two pages. */
export const MANY = 60

export type ActivityChain = {
  app: FastifyInstance
  provider: JsonRpcProvider
  wallets: Wallet[]
  head: number
  contracts: { token: string, nft: string, multi: string, caller: string, fanout: string }
  receipts: {
    tokenCreation: TransactionReceipt
    tokenTransfer: TransactionReceipt
    nftTransfer: TransactionReceipt
    multiBatch: TransactionReceipt
    multiSingle: TransactionReceipt
    spawn: TransactionReceipt
    forward: TransactionReceipt
    reverted: TransactionReceipt
    fan: TransactionReceipt
    selfdestruct: TransactionReceipt
    coinTransfer: TransactionReceipt
  }
  /** The recipients of the fan-out payments. */
  payees: string[]
}

type Receipts = ActivityChain['receipts']
/** What a template keeps of its chain: the wallets' keys, the addresses, the receipts' hashes. */
type ActivityMeta = { keys: string[], head: number, contracts: ActivityChain['contracts'], receipts: Record<keyof Receipts, string>, payees: string[] }

/**
 * The activity chain on a gateway of this file's own: a copy of the tap run's
 * template when there is one (see fixture-template.ts), else built here.
 */
export async function buildActivityChain (t: Tap): Promise<ActivityChain> {
  const template = await chainTemplate('activity', buildActivityTemplate)
  if (template === undefined) {
    const { wallets, allocFile } = await writeFundedAlloc(t, 2)
    const { app, url } = await build(t, { GENESIS_ALLOC: allocFile })
    return await populateActivityChain(t, app, url, wallets)
  }
  const clone = await cloneTemplate(t, template)
  const { keys, contracts, payees } = clone.meta
  const wallets = keys.map((key) => new Wallet(key))
  const { app, url } = await buildOnTemplate(t, clone, wallets[0]!)
  const provider = connect(t, url)
  const receipt = async (hash: string) => (await provider.getTransactionReceipt(hash))!
  const receipts = Object.fromEntries(await Promise.all(Object.entries(clone.meta.receipts).map(async ([name, hash]) => [name, await receipt(hash)]))) as Receipts
  const head = await waitForIndexed(app)
  if (head !== clone.meta.head) throw new Error(`the activity chain's copy is indexed to ${head}, its template to ${clone.meta.head}`)
  return { app, provider, wallets: wallets.map((w) => w.connect(provider)), head, contracts, receipts, payees }
}

/** The template: the chain built on its data directory and database, then stopped. */
async function buildActivityTemplate (dataDir: string, databaseUrl: string): Promise<ActivityMeta> {
  return await withTeardowns(async (t) => {
    const wallets = Array.from({ length: 2 }, () => Wallet.createRandom() as unknown as Wallet)
    await writeFundedAllocFile(join(dataDir, 'alloc.json'), wallets)
    const { app, url } = await buildOnTemplate(t, { dataDir, databaseUrl }, wallets[0]!)
    const chain = await populateActivityChain(t, app, url, wallets)
    const receipts = Object.fromEntries(Object.entries(chain.receipts).map(([name, r]) => [name, r.hash])) as Record<keyof Receipts, string>
    return { keys: wallets.map((w) => w.privateKey), head: chain.head, contracts: chain.contracts, receipts, payees: chain.payees }
  })
}

function connect (t: Tap, url: string): JsonRpcProvider {
  const provider = new JsonRpcProvider(`${url}/rpc`, 793788, { staticNetwork: true, cacheTimeout: -1 })
  t.teardown(() => provider.destroy())
  return provider
}

/** Sends the chain's transactions through the gateway at `url` from two funded wallets, and waits until all is indexed. */
async function populateActivityChain (t: Tap, app: FastifyInstance, url: string, wallets: Wallet[]): Promise<ActivityChain> {
  const provider = connect(t, url)
  const [alice, bob] = wallets.map((w) => w.connect(provider)) as [Wallet, Wallet]
  const unstall = async (): Promise<void> => await restartSealing(app.geth.rpc)
  const receipt = async (sent: Promise<{ hash: string }>) => await waitForReceipt(provider, (await sent).hash, undefined, unstall)
  const deploy = async (name: string, source: URL, ...args: unknown[]) => {
    const compiled = await compileContract(source, name)
    const contract = await new ContractFactory(compiled.abi as never, compiled.bytecode, alice).deploy(...args) as Contract
    return { contract, creation: await waitForReceipt(provider, contract.deploymentTransaction()!.hash, undefined, unstall) }
  }

  const { contract: token, creation: tokenCreation } = await deploy('TestToken', TEST_TOKEN_SOURCE, 'Activity', 'ACT', 10n ** 24n)
  const tokenTransfer = await receipt(token.getFunction('transfer')(bob.address, 12345n))

  const { contract: nft } = await deploy('TestNft', fixture('TestNft'))
  await receipt(nft.getFunction('mint')(alice.address, 1n))
  await receipt(nft.getFunction('mint')(alice.address, 2n))
  const nftTransfer = await receipt(nft.getFunction('transferFrom')(alice.address, bob.address, 1n))

  const { contract: multi } = await deploy('TestMulti', fixture('TestMulti'))
  const ids = Array.from({ length: MANY }, (_, i) => BigInt(i + 1))
  // The mints go out together (explicit nonces) and are sealed in a few blocks.
  let nonce = await provider.getTransactionCount(alice.address, 'pending')
  const mints = await Promise.all(ids.map(async (id) => await multi.getFunction('mint')(alice.address, id, 100n + id, { nonce: nonce++, gasLimit: 100_000 })))
  await Promise.all(mints.map(async (m) => await waitForReceipt(provider, m.hash, undefined, unstall)))
  const multiBatch = await receipt(multi.getFunction('safeBatchTransferFrom')(alice.address, bob.address, ids, ids.map((id) => id), '0x'))
  const multiSingle = await receipt(multi.getFunction('safeTransferFrom')(alice.address, bob.address, 1n, 5n, '0x'))

  const { contract: caller } = await deploy('Caller', fixture('Caller'))
  const spawn = await receipt(caller.getFunction('spawn')())
  await receipt(token.getFunction('transfer')(await caller.getAddress(), 1000n))
  const forward = await receipt(caller.getFunction('forward')(await token.getAddress(), bob.address, 10n))
  // A fixed gas limit: estimation would refuse a call that reverts.
  const reverted = await receipt(caller.getFunction('fail')({ gasLimit: 100_000 }))

  const { contract: fanout } = await deploy('Fanout', fixture('Fanout'))
  const payees = Array.from({ length: MANY }, () => Wallet.createRandom().address)
  const fan = await receipt(fanout.getFunction('fan')(payees, { value: BigInt(MANY) * 1000n }))
  // A second instance, funded then closed: its balance goes to bob in a selfdestruct frame.
  const { contract: closing } = await deploy('Fanout', fixture('Fanout'))
  await receipt(alice.sendTransaction({ to: await closing.getAddress(), value: 777n }))
  const selfdestruct = await receipt(closing.getFunction('close')(bob.address))
  const coinTransfer = await receipt(alice.sendTransaction({ to: bob.address, value: 10n ** 18n }))

  const head = await waitForIndexed(app)
  return {
    app,
    provider,
    wallets: [alice, bob],
    head,
    contracts: {
      token: await token.getAddress(),
      nft: await nft.getAddress(),
      multi: await multi.getAddress(),
      caller: await caller.getAddress(),
      fanout: await fanout.getAddress()
    },
    receipts: { tokenCreation, tokenTransfer, nftTransfer, multiBatch, multiSingle, spawn, forward, reverted, fan, selfdestruct, coinTransfer },
    payees
  }
}
