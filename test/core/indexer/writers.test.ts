// Gateways sharing one database: the advisory lock lets exactly one index;
// when the writer dies (-9) or stops (SIGTERM) a reader takes over and indexes
// the blocks that follow.
import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { JsonRpcProvider, Wallet } from 'ethers'
import pino from 'pino'
import { CHAIN_ID, loadConfig } from '../../../core/config.ts'
import { createGethNode } from '../../../geth/node.ts'
import { createTestChainFiles, waitForReceipt } from '../../support/chain.ts'
import { createTestDatabase } from '../../support/database.ts'
import { startGatewayProcess, waitFor, type GatewayProcess } from '../../support/gateway-process.ts'
import { subscribeGraphql } from '../../support/graphql.ts'

// Every gateway uses this test's own Geth (GETH_RPC_URL): one killed with -9
// would otherwise take its Geth's fate with it, and the others their node.
const chain = await createTestChainFiles(t)
const node = await createGethNode({ config: loadConfig({ ...process.env, ...chain.env }), log: pino({ level: 'warn' }) })
await node.start()
t.teardown(async () => await node.stop())
const databaseUrl = await createTestDatabase(t)
const provider = new JsonRpcProvider(node.rpc.url, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())
const sender = new Wallet(chain.account.privateKey, provider)

async function startGateway (): Promise<GatewayProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-writer-'))
  t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
  return await startGatewayProcess(t, { ...chain.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, GETH_RPC_URL: node.rpc.url })
}

const role = async (gateway: GatewayProcess): Promise<string> => (await gateway.health()).body.indexer.role

/** Seals a block with one transfer and returns its number (and the transfer's hash). */
async function sealBlock (): Promise<number> {
  return (await sealTransfer()).blockNumber
}

async function sealTransfer (): Promise<{ hash: string, blockNumber: number }> {
  const { hash } = await sender.sendTransaction({ to: Wallet.createRandom().address, value: 1n })
  return { hash, blockNumber: (await waitForReceipt(provider, hash)).blockNumber }
}

async function waitUntilIndexedBy (gateway: GatewayProcess, block: number): Promise<void> {
  await waitFor(`block ${block} indexed by pid ${gateway.pid}`, async () => {
    const { indexer } = (await gateway.health()).body
    return indexer.role === 'writer' && indexer.head >= block ? true : undefined
  })
}

const a = await startGateway()
const b = await startGateway()

t.test('one of two gateways on a database indexes, the other reads', async (t) => {
  const roles = await waitFor('both roles settled', async () => {
    const both = [await role(a), await role(b)]
    return both.includes('starting') ? undefined : both
  })
  t.same(roles, ['writer', 'reader'], 'the first to start holds the lock')
  const block = await sealBlock()
  await waitUntilIndexedBy(a, block)
  const reader = await waitFor('the reader to see the new head', async () => {
    const { indexer } = (await b.health()).body
    return indexer.head === block ? indexer : undefined
  })
  t.equal(reader.role, 'reader', 'the reader reports the index head without writing')
})

t.test('a GraphQL subscriber on the reader hears of new transactions', async (t) => {
  const subscription = await subscribeGraphql(`${b.url.replace('http', 'ws')}/api/v2/graphql`, 'subscription { newTransaction { hash blockNumber } }')
  t.teardown(() => subscription.close())
  const { hash, blockNumber } = await sealTransfer()
  // The writer commits the block, the reader hears the commit and reads it back.
  const message = await subscription.next(2000)
  t.same(message.payload.data.newTransaction, { hash, blockNumber }, 'within 2 s of the receipt')
})

t.test('when the writer is killed with -9 the reader takes over', async (t) => {
  a.kill('SIGKILL')
  await a.exited
  await waitFor('the reader to take the lock', async () => await role(b) === 'writer' ? true : undefined)
  t.pass('the reader became the writer')
  const block = await sealBlock()
  await waitUntilIndexedBy(b, block)
  t.pass(`and indexed the new block ${block}`)
})

t.test('when the writer stops cleanly the next reader takes over', async (t) => {
  const c = await startGateway()
  await waitFor('the new gateway to read', async () => await role(c) === 'reader' ? true : undefined)
  t.equal(await role(b), 'writer', 'the running writer keeps the lock')
  b.kill('SIGTERM')
  t.same(await b.exited, { code: 0, signal: null })
  await waitFor('the reader to take the lock', async () => await role(c) === 'writer' ? true : undefined)
  const block = await sealBlock()
  await waitUntilIndexedBy(c, block)
  t.pass(`the new writer indexed block ${block}`)
})
