// The background reads run on the instance that indexes, and only when NFT
// metadata is switched on. A real database; the node is an address where
// nothing listens (every tokenURI call fails at once, keeping nothing), and
// the indexer an emitter whose role the test sets: what is counted is
// whether the plugin asked the node at all.
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import pino from 'pino'
import db from '../../../plugins/db/index.ts'
import { openDatabase } from '../../../core/db/index.ts'
import nftMetadata from '../../../plugins/nft-metadata/index.ts'
import { createRpcClient } from '../../../core/rpc/client.ts'
import type { IndexerRole } from '../../../core/indexer/index.ts'
import { createIndexerEvents } from '../../../core/indexer/events.ts'
import { createTestDatabase } from '../../support/database.ts'

const url = await createTestDatabase(t)
const MINT = { token_address: `0x${'ab'.repeat(20)}`, token_type: 'ERC-721', from: `0x${'00'.repeat(20)}`, to: `0x${'cd'.repeat(20)}`, token_id: '7' }

async function start (t: Test, enabled: boolean, role: IndexerRole) {
  const app = Fastify({ loggerInstance: pino({ level: 'silent' }) })
  const client = createRpcClient({ url: 'http://127.0.0.1:9', timeoutMs: 1000 })
  let calls = 0
  const rpc = Object.assign(Object.create(client) as typeof client, {
    call: async (...args: Parameters<typeof client.call>) => { calls++; return await client.call(...args) }
  })
  const indexer = { events: createIndexerEvents(pino({ level: 'silent' })), status: () => ({ role, enabled: true, indexedHead: 100, nodeHead: 100 }) }
  await app.register(db, { database: await openDatabase({ url, dataDir: '.', poolMax: 2, log: pino({ level: 'silent' }) }) })
  await app.register(fp(async (scope) => { scope.decorate('geth', { rpc } as never) }, { name: 'geth' }))
  await app.register(fp(async (scope) => { scope.decorate('indexer', indexer as never) }, { name: 'indexer' }))
  await app.register(nftMetadata, { enabled, ipfsGateway: 'https://ipfs.io/ipfs/', allowPrivateHosts: false })
  await app.ready()
  t.teardown(async () => { await app.close(); await client.close() })
  // A mint in a committed batch, as the indexer publishes it (stored here on the writer only); then time for the reads to start.
  const emitMint = async () => {
    indexer.events.publish({ type: 'block', blocks: [{ tokenTransfers: [MINT] } as never], storedHere: role === 'writer' })
    await new Promise((resolve) => setTimeout(resolve, 200))
    return calls
  }
  return { app, emitMint }
}

t.test('the writer reads what a batch minted', async (t) => {
  const { app, emitMint } = await start(t, true, 'writer')
  t.equal(await emitMint(), 1, 'tokenURI was asked')
  t.ok(app.hasDecorator('nftMetadata'), 'the REST routes find the reader on the app')
})

t.test('a reader of the index leaves the reads to the writer', async (t) => {
  const { emitMint } = await start(t, true, 'reader')
  t.equal(await emitMint(), 0)
})

t.test('switched off, nothing is read in the background', async (t) => {
  const { emitMint } = await start(t, false, 'writer')
  t.equal(await emitMint(), 0)
})
