// The JSON-RPC cache through the endpoint (core/json-rpc/answer-cache.ts):
// kept answers carry each request's own id, a batch mixes kept and fresh
// answers in order, `latest` answers follow the head as soon as the gateway
// hears it (or an answer shows a newer block), identical misses ask Geth once,
// and an instance with RPC_CACHE_ENABLED=false forwards everything.
import t from 'tap'
import { Wallet } from 'ethers'
import { setTimeout as sleep } from 'node:timers/promises'
import { build, postRpc } from '../../helper.ts'
import { buildSecondInstance } from '../../support/second-instance.ts'
import { sign } from '../../support/blocks.ts'
import { connectWsRpc, wsUrlOf } from '../../support/ws-rpc.ts'
import { parsePrometheusText, sampleValue } from '../../support/prometheus.ts'

const HEARD_TIMEOUT_MS = 20_000

const gateway = await build(t)
const { app, url, chain } = gateway
const rpc = app.geth.rpc
const cache = app.jsonRpcCache!
const off = await buildSecondInstance(t, gateway, { RPC_CACHE_ENABLED: 'false' })
let nonce = Number(await rpc.call<string>('eth_getTransactionCount', [chain.account.address, 'pending']))

/** The raw text of an answer: the id must be the request's own, written as it came. */
async function postText (target: string, body: unknown): Promise<string> {
  const response = await fetch(target + '/rpc', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return await response.text()
}

async function offAnswer (body: unknown): Promise<any> {
  return JSON.parse((await off.inject({ method: 'POST', url: '/rpc', payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } })).body)
}

async function nodeHead (): Promise<number> {
  return Number(await rpc.call<string>('eth_blockNumber'))
}

async function waitUntilHeard (number: number): Promise<void> {
  const deadline = Date.now() + HEARD_TIMEOUT_MS
  while ((cache.head() ?? -1) < number) {
    if (Date.now() > deadline) throw new Error(`the cache did not hear block ${number} (it is at ${cache.head()})`)
    await sleep(5)
  }
}

/** Sends a transfer straight to Geth (period 0 seals it at once); resolves with its hash. */
async function transfer (to: string, value: bigint): Promise<string> {
  return await rpc.call<string>('eth_sendRawTransaction', [await sign(chain.account, { to, value, gasLimit: 21_000n, nonce: nonce++ })])
}

async function sealBlock (to: string, value = 1n): Promise<number> {
  const before = await nodeHead()
  await transfer(to, value)
  while (await nodeHead() <= before) await sleep(5)
  const head = await nodeHead()
  await waitUntilHeard(head)
  return head
}

const call = (method: string, params: unknown[] = [], id: number | string | null = 1) => ({ jsonrpc: '2.0', id, method, params })

await sealBlock(Wallet.createRandom().address)

t.test('kept answers carry the request\'s own id, over HTTP and the WebSocket', async (t) => {
  const address = chain.account.address
  const first = JSON.parse(await postText(url, call('eth_getBalance', [address], 7)))
  const hitsBefore = cache.stats().hits
  t.equal(await postText(url, call('eth_getBalance', [address.toLowerCase(), 'latest'], 'abc')), `{"jsonrpc":"2.0","id":"abc","result":${JSON.stringify(first.result)}}`)
  t.equal(await postText(url, call('eth_getBalance', [address], null)), `{"jsonrpc":"2.0","id":null,"result":${JSON.stringify(first.result)}}`)
  t.equal(cache.stats().hits, hitsBefore + 2, 'both answered from the cache (a missing block is latest, addresses in any case)')
  const ws = await connectWsRpc(t, wsUrlOf(url))
  t.same(await ws.call('eth_getBalance', [address], 99), { jsonrpc: '2.0', id: 99, result: first.result }, 'the WebSocket shares the handler and its cache')
  t.equal(cache.stats().hits, hitsBefore + 3)
})

t.test('a batch mixes kept and fresh answers in order, each with its own id', async (t) => {
  const stranger = Wallet.createRandom().address
  const kept = (await postRpc(url, call('eth_blockNumber'))).json.result
  const { status, json } = await postRpc(url, [
    call('eth_blockNumber', [], 'a'),
    call('eth_chainId', [], 'b'),
    call('eth_getBalance', [stranger], 'c'),
    call('debug_setHead', ['0x0'], 'd'),
    { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] },
    call('eth_getBalance', [stranger, 'pending'], 'e'),
    call('eth_getBalance', [stranger], 'f')
  ])
  t.equal(status, 200)
  t.same(json.map((a: any) => a.id), ['a', 'b', 'c', 'd', 'e', 'f'], 'in order; the notification has no answer')
  t.equal(json[0].result, kept)
  t.equal(json[1].result, '0xc1cbc')
  t.equal(json[2].result, '0x0')
  t.equal(json[3].error.code, -32601)
  t.equal(json[4].result, '0x0')
  t.equal(json[5].result, '0x0', 'identical misses in one batch share one request')
})

t.test('latest answers change as soon as the gateway hears the new head', async (t) => {
  const recipient = Wallet.createRandom().address
  t.equal((await postRpc(url, call('eth_getBalance', [recipient]))).json.result, '0x0')
  t.equal((await postRpc(url, call('eth_getBalance', [recipient]))).json.result, '0x0', 'kept')
  const head = await sealBlock(recipient, 5n)
  t.equal((await postRpc(url, call('eth_getBalance', [recipient]))).json.result, '0x5', 'right after the head is heard')
  t.equal((await postRpc(url, call('eth_blockNumber'))).json.result, '0x' + head.toString(16))
  t.equal((await postRpc(url, call('eth_getBlockByNumber', ['latest', false]))).json.result.number, '0x' + head.toString(16))
})

t.test('a receipt showing a block the gateway has not heard of yet drops what answered for latest', async (t) => {
  const recipient = Wallet.createRandom().address
  t.equal((await postRpc(url, call('eth_getBalance', [recipient]))).json.result, '0x0')
  // As a wallet does: send, poll the receipt, then read the balance at once.
  const hash = await transfer(recipient, 3n)
  let receipt: any = null
  while (receipt === null) receipt = (await postRpc(url, call('eth_getTransactionReceipt', [hash]))).json.result
  t.equal((await postRpc(url, call('eth_getBalance', [recipient]))).json.result, '0x3', 'never the balance before the block the receipt names')
  await waitUntilHeard(Number(receipt.blockNumber))
})

t.test('WebSocket clients\' newHeads share the cache\'s subscription, and are told of a head after the cache heard it', async (t) => {
  const hub = app.rpcWebsocket.subscriptionStats()!
  const ws = await connectWsRpc(t, wsUrlOf(url))
  const id = (await ws.call('eth_subscribe', ['newHeads'])).result
  t.equal(app.rpcWebsocket.subscriptionStats()!.nodeSubscribeCalls, hub.nodeSubscribeCalls, 'no second newHeads subscription to Geth')
  const answered: Array<{ told: number, blockNumber: number }> = []
  let asked = 0
  const recipient = Wallet.createRandom().address
  for (let i = 0; i < 3; i++) {
    await transfer(recipient, 1n)
    await ws.until(() => ws.notifications.length > asked)
    // As a dapp does: told of a head, it reads at latest at once.
    for (; asked < ws.notifications.length; asked++) {
      const told = Number(ws.notifications[asked]!.result.number)
      answered.push({ told, blockNumber: Number((await postRpc(url, call('eth_blockNumber'))).json.result) })
    }
  }
  t.ok(ws.notifications.every((n) => n.subscription === id))
  t.ok(answered.every((a) => a.blockNumber >= a.told), `never a head older than the one told: ${JSON.stringify(answered)}`)
  await ws.call('eth_unsubscribe', [id])
  await waitUntilHeard(await nodeHead())
})

t.test('identical misses of one head ask Geth once', async (t) => {
  await sealBlock(Wallet.createRandom().address)
  const before = cache.stats()
  const body = call('eth_call', [{ to: chain.account.address, data: '0x' }])
  const answers = await Promise.all(Array.from({ length: 10 }, async () => (await postRpc(url, body)).json))
  t.ok(answers.every((a) => a.result === '0x'))
  const after = cache.stats()
  t.equal(after.misses - before.misses - (after.joined - before.joined), 1, 'one request to Geth; the others joined it or found its answer')
  t.equal(after.hits - before.hits + after.misses - before.misses, 10)
})

t.test('/metrics counts hits and misses', async (t) => {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body
  const exposition = parsePrometheusText(text)
  t.equal(sampleValue(exposition, 'gateway_jsonrpc_cache_lookups_total', { outcome: 'hit' }), cache.stats().hits)
  t.ok(sampleValue(exposition, 'gateway_jsonrpc_cache_lookups_total', { outcome: 'miss' })! > 0)
  t.ok(sampleValue(exposition, 'gateway_jsonrpc_cache_bytes', { kept: 'head' })! > 0)
})

t.test('RPC_CACHE_ENABLED=false forwards every call; a reorg is heard with the next head', async (t) => {
  t.equal(off.jsonRpcCache, undefined)
  const recipient = Wallet.createRandom().address
  const head = await sealBlock(recipient, 7n)
  const block = (await postRpc(url, call('eth_getBlockByNumber', ['0x' + head.toString(16), false]))).json.result
  t.equal((await postRpc(url, call('eth_getBalance', [recipient]))).json.result, '0x7')
  t.equal((await postRpc(url, call('eth_blockNumber'))).json.result, '0x' + head.toString(16))
  // Geth set back one block, which it does not announce: the cache keeps answering for the head it heard,
  // the instance without it answers what Geth has now.
  await rpc.call('debug_setHead', ['0x' + (head - 1).toString(16)])
  t.equal((await offAnswer(call('eth_blockNumber'))).result, '0x' + (head - 1).toString(16), 'without the cache: Geth\'s head at once')
  t.equal((await offAnswer(call('eth_getBalance', [recipient]))).result, '0x0')
  t.equal((await postRpc(url, call('eth_blockNumber'))).json.result, '0x' + head.toString(16), 'with it: the head it heard')
  // A new block at the same height: the cache hears a head whose parent is not the one before.
  const reorgsBefore = cache.stats().reorgs
  nonce = Number(await rpc.call<string>('eth_getTransactionCount', [chain.account.address, 'latest']))
  await transfer(Wallet.createRandom().address, 1n)
  const deadline = Date.now() + HEARD_TIMEOUT_MS
  while (cache.stats().reorgs === reorgsBefore || cache.head() === undefined) {
    if (Date.now() > deadline) throw new Error('the cache heard no reorg')
    await sleep(5)
  }
  t.equal(cache.head(), head)
  const replaced = (await postRpc(url, call('eth_getBlockByNumber', ['0x' + head.toString(16), false]))).json.result
  t.not(replaced.hash, block.hash, 'the replaced block is not served from the cache')
  t.equal(replaced.hash, (await rpc.call<any>('eth_getBlockByNumber', ['0x' + head.toString(16), false])).hash)
  const balance = await rpc.call<string>('eth_getBalance', [recipient, 'latest'])
  t.equal((await postRpc(url, call('eth_getBalance', [recipient]))).json.result, balance, 'nor the state of the replaced block')
  t.equal((await offAnswer(call('eth_getBalance', [recipient]))).result, balance)
})
