// The Phoenix channels socket with the client Blockscout's front end uses (the
// `phoenix` package) on a real chain: each topic joined, a payment and a token
// transfer sent, their events received in the REST API's shapes; heartbeats;
// errors that keep the socket; and a second instance on the same database (a
// reader: the first holds the indexer lock) whose clients hear the writer's
// blocks. The caps are tested without a network in test/core/phoenix.
import t from 'tap'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join as joinPath } from 'node:path'
import pino from 'pino'
import WebSocket from 'ws'
import { Socket, type Channel } from 'phoenix'
import { ContractFactory, JsonRpcProvider, Wallet, getAddress, type Contract } from 'ethers'
import { build } from '../../helper.ts'
import { buildApp } from '../../../plugins/index.ts'
import { loadConfig } from '../../../core/config.ts'
import { compileContract, TEST_TOKEN_SOURCE } from '../../support/contracts.ts'
import { waitForReceipt } from '../../support/chain.ts'
import { waitForIndexed } from '../../support/indexer.ts'
import { waitFor } from '../../support/gateway-process.ts'
import { checkSpec } from '../../support/openapi.ts'
import { createChannelHub } from '../../../core/phoenix/hub.ts'
import { broadcastBatch, MAX_NEW_BLOCKS_PER_BATCH } from '../../../plugins/socket/broadcasts.ts'
import type { CommittedBlock } from '../../../core/indexer/types.ts'

const { app, url, chain, config } = await build(t)
const provider = new JsonRpcProvider(`${url}/rpc`, 793788, { staticNetwork: true, cacheTimeout: -1 })
t.teardown(() => provider.destroy())
const sender = new Wallet(chain.account.privateKey, provider)
const compiled = await compileContract(TEST_TOKEN_SOURCE, 'TestToken')
const token = await new ContractFactory(compiled.abi as never, compiled.bytecode, sender).deploy('Live', 'LIV', 10n ** 24n) as Contract
await waitForReceipt(provider, token.deploymentTransaction()!.hash)
const tokenAddress = (await token.getAddress()).toLowerCase()
await waitForIndexed(app)
const get = async (path: string) => (await app.inject({ method: 'GET', url: path })).json()

/** A phoenix client on `base`'s socket, disconnected on teardown. */
function connect (base: string): Socket {
  const socket = new Socket(`${base.replace('http', 'ws')}/socket/v2`, { transport: WebSocket as never, reconnectAfterMs: () => 100 })
  socket.connect()
  t.teardown(() => socket.disconnect())
  return socket
}

async function join (socket: Socket, topic: string): Promise<Channel> {
  const channel = socket.channel(topic, {})
  await new Promise((resolve, reject) => {
    channel.join().receive('ok', resolve).receive('error', (reason: unknown) => reject(new Error(`${topic}: ${JSON.stringify(reason)}`)))
  })
  return channel
}

/** Every payload of `event` on `channel` from now on. */
function collect (channel: Channel, event: string): any[] {
  const payloads: any[] = []
  channel.on(event, (payload) => { payloads.push(payload) })
  return payloads
}

t.test('topics hear new blocks, transactions, token transfers and balances in the REST shapes', async (t) => {
  const socket = connect(url)
  const payee = Wallet.createRandom().address.toLowerCase()
  const holder = Wallet.createRandom().address.toLowerCase()
  const signer = (await get('/api/v2/blocks/1')).miner.hash.toLowerCase()
  const newBlocks = collect(await join(socket, 'blocks:new_block'), 'new_block')
  const signerBlocks = collect(await join(socket, `blocks:${signer}`), 'new_block')
  const newTransactions = collect(await join(socket, 'transactions:new_transaction'), 'transaction')
  const tokenChannel = await join(socket, `tokens:${tokenAddress}`)
  const tokenTransfers = collect(tokenChannel, 'token_transfer')
  const payeeChannel = await join(socket, `addresses:${payee}`)
  const payeeTransactions = collect(payeeChannel, 'transaction')
  const payeeBalances = collect(payeeChannel, 'current_coin_balance')
  const payeeHistory = collect(payeeChannel, 'coin_balance')
  const payeeBalance = collect(payeeChannel, 'balance')
  const holderChannel = await join(socket, `addresses:${holder}`)
  const holderTransfers = collect(holderChannel, 'token_transfer')
  const holderTokenBalance = collect(holderChannel, 'token_balance')
  const addressCounts = collect(await join(socket, 'addresses:new_address'), 'count')

  const payment = await waitForReceipt(provider, (await sender.sendTransaction({ to: payee, value: 5n })).hash)
  const transfer = await waitForReceipt(provider, (await token.getFunction('transfer')(holder, 1234n)).hash)
  await waitFor('the events of both blocks', async () =>
    newBlocks.some((p) => p.block.height === transfer.blockNumber) && holderTransfers.length > 0 && payeeHistory.length > 0 ? true : undefined)

  for (const number of [payment.blockNumber, transfer.blockNumber]) {
    const heard = newBlocks.find((p) => p.block.height === number)
    t.same(heard.block, await get(`/api/v2/blocks/${number}`), `block ${number} as /api/v2/blocks/{n} gives it`)
    t.match(heard.average_block_time, /^[0-9]+$/, 'average_block_time: milliseconds as a string')
    t.ok(signerBlocks.some((p) => p.block.height === number), `blocks:<signer> hears block ${number}`)
  }
  checkSpec(t, '/v2/blocks/{block_hash_or_number_param}', newBlocks[0].block)
  t.same(newTransactions.slice(-2), [{ transaction: 1 }, { transaction: 1 }], 'transactions:new_transaction counts each block\'s')
  t.same(tokenTransfers, [{ token_transfer: 1 }], 'tokens:<token> counts its transfers')

  const listed = (await get(`/api/v2/addresses/${payee}/transactions`)).items
  // Told as its block came in: one confirmation then, and the pace of the blocks up to it.
  const asTold = payeeTransactions[0]?.transactions?.[0]
  t.equal(asTold?.confirmations, 1)
  t.match(asTold?.confirmation_duration, [0, Number])
  t.same(payeeTransactions, [{ transactions: listed.map((tx: object) => ({ ...tx, confirmations: 1, confirmation_duration: asTold?.confirmation_duration })) }],
    'addresses:<payee> gets the payment as its transactions list shows it')
  t.equal(listed[0].hash, payment.hash)
  t.same(payeeBalance, [{ balance: '5', block_number: payment.blockNumber, exchange_rate: null }])
  t.same(payeeBalances, [{ coin_balance: '5', block_number: payment.blockNumber, exchange_rate: null }])
  t.same(payeeHistory, [{ coin_balance: (await get(`/api/v2/addresses/${payee}/coin-balance-history`)).items[0] }])

  const transfers = (await get(`/api/v2/addresses/${holder}/token-transfers`)).items
  t.same(holderTransfers, [{ token_transfers: transfers }], 'addresses:<holder> gets the token transfer as its list shows it')
  t.equal(transfers[0].method, 'transfer', 'the method by name, as the transaction shows it')
  t.equal(getAddress(transfers[0].token.address_hash), getAddress(tokenAddress))
  t.same(holderTokenBalance, [{ block_number: transfer.blockNumber }])
  const { rows: [{ n }] } = await app.db.knex.raw('select count(*)::int as n from addresses')
  t.equal(addressCounts.at(-1).count, n, 'addresses:new_address counts the addresses')
})

/** A raw WebSocket to the socket, with the frames it receives. */
async function rawSocket (): Promise<{ ws: WebSocket, frames: unknown[][], next: () => Promise<unknown[]> }> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/socket/v2/websocket?vsn=2.0.0`)
  t.teardown(() => ws.terminate())
  const frames: unknown[][] = []
  ws.on('message', (data) => frames.push(JSON.parse(String(data))))
  await new Promise((resolve) => ws.once('open', resolve))
  let read = 0
  const next = async () => {
    await waitFor('a frame', async () => frames.length > read ? true : undefined)
    return frames[read++]!
  }
  return { ws, frames, next }
}

t.test('heartbeats, unknown topics and malformed frames are answered and the socket stays open', async (t) => {
  const { ws, next } = await rawSocket()
  ws.send('[null,"1","phoenix","heartbeat",{}]')
  t.same(await next(), [null, '1', 'phoenix', 'phx_reply', { status: 'ok', response: {} }])
  ws.send('["2","2","nope:1","phx_join",{}]')
  t.same(await next(), ['2', '2', 'nope:1', 'phx_reply', { status: 'error', response: { reason: 'unmatched topic' } }])
  ws.send('{"not": "a frame"')
  t.same(await next(), [null, null, 'phoenix', 'phx_error', { reason: 'malformed message: expected [join_ref, ref, topic, event, payload]' }])
  ws.send('["3","3","addresses:0x1","phx_join",{}]')
  t.same(await next(), ['3', '3', 'addresses:0x1', 'phx_reply', { status: 'error', response: { reason: 'Invalid address hash' } }])
  ws.send('["4","4","blocks:new_block","phx_join",{}]')
  t.same(await next(), ['4', '4', 'blocks:new_block', 'phx_reply', { status: 'ok', response: {} }])
  t.equal(ws.readyState, WebSocket.OPEN)

  // A path that serves no WebSocket refuses the upgrade rather than accepting and closing it.
  const elsewhere = new WebSocket(`${url.replace('http', 'ws')}/api/v2/stats`)
  const status = await new Promise((resolve) => elsewhere.once('unexpected-response', (_request, response) => resolve(response.statusCode)))
  t.equal(status, 404)
  // Ending a refused handshake reports it as an error: expected here.
  elsewhere.on('error', () => {})
  elsewhere.terminate()

  const socket = connect(url)
  await t.rejects(join(socket, 'nope:2'), /unmatched topic/, 'the phoenix client gets the join error')
  t.ok(await join(socket, 'transactions:new_pending_transaction'), 'and joins on the same socket')
})

t.test('a second instance on the database (a reader) tells its clients of the writer\'s blocks', async (t) => {
  const readerConfig = loadConfig({ ...process.env, DATABASE_URL: config.databaseUrl!, GETH_RPC_URL: `${url}/rpc`, DATA_DIR: await mkdtemp(joinPath(tmpdir(), 'socket-reader-')), LOG_LEVEL: 'warn' })
  const reader = await buildApp(readerConfig, { logger: pino({ level: 'warn' }) })
  t.teardown(async () => await reader.close())
  await reader.listen({ host: '127.0.0.1', port: 0 })
  await waitFor('the second instance to read', async () => reader.indexer.status().role === 'reader' ? true : undefined)
  const { port } = reader.server.address() as { port: number }
  const newBlocks = collect(await join(connect(`http://127.0.0.1:${port}`), 'blocks:new_block'), 'new_block')
  const payment = await waitForReceipt(provider, (await sender.sendTransaction({ to: Wallet.createRandom().address, value: 1n })).hash)
  await waitFor('the reader\'s clients to hear the block', async () => newBlocks.some((p) => p.block.height === payment.blockNumber) ? true : undefined)
  t.same(newBlocks.find((p) => p.block.height === payment.blockNumber).block, await get(`/api/v2/blocks/${payment.blockNumber}`))
})

t.test('a batch of many blocks (a backfill) broadcasts new_block for its newest blocks only', async (t) => {
  const hub = createChannelHub()
  const heard: string[] = []
  hub.join('blocks:new_block', { pushText: (text) => { heard.push(text) } })
  const head = await waitForIndexed(app)
  const stored = await app.db.knex('blocks').select('number', 'signer').orderBy('number')
  // Stored blocks, each several times over: a batch longer than the cap.
  const batch = Array.from({ length: MAX_NEW_BLOCKS_PER_BATCH * 3 }, (_, i) => {
    const row = stored[(i % head) + 1]
    return { block: { number: Number(row.number), signer: null }, transactions: [], tokenTransfers: [] } as unknown as CommittedBlock
  })
  await broadcastBatch(app.queries, hub, batch)
  t.equal(heard.length, MAX_NEW_BLOCKS_PER_BATCH)
  t.same(heard.map((text) => JSON.parse(text)[4].block.height), batch.slice(-MAX_NEW_BLOCKS_PER_BATCH).map((b) => b.block.number))
})
