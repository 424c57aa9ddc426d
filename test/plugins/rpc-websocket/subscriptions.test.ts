// eth_subscribe over the gateway's WebSocket, fed by Geth's own
// subscriptions: one subscription to Geth per kind and filter however many
// clients ask (counted on the hub), each client hearing the events under its
// own id; ended on Geth when the last client leaves. Real Geth, CLIQUE_PERIOD=0:
// each transaction seals a block.
import t from 'tap'
import { Wallet } from 'ethers'
import { build } from '../../helper.ts'
import { connectWsRpc, wsUrlOf, type WsRpcClient } from '../../support/ws-rpc.ts'
import { TRANSFER_TOPIC, deployTokenEvents } from '../../support/token-events.ts'

// Without the JSON-RPC cache, whose own newHeads listener would share the clients' subscription
// and keep it on Geth (test/plugins/rpc-proxy/cache.test.ts holds that).
const { app, url, chain } = await build(t, { RPC_CACHE_ENABLED: 'false' })
const tokens = await deployTokenEvents(url, chain.account)
const stats = () => app.rpcWebsocket.subscriptionStats()!

async function subscribe (client: WsRpcClient, params: unknown[]): Promise<string> {
  const answer = await client.call('eth_subscribe', params)
  if (typeof answer.result !== 'string') throw new Error(`eth_subscribe answered ${JSON.stringify(answer)}`)
  return answer.result
}

t.test('newHeads: N clients share one subscription to Geth; each hears the block under its own id', async (t) => {
  const before = stats().nodeSubscribeCalls
  const clients = await Promise.all([1, 2, 3, 4].map(async () => await connectWsRpc(t, wsUrlOf(url))))
  const ids = await Promise.all(clients.map(async (c) => await subscribe(c, ['newHeads'])))
  t.equal(new Set(ids).size, 4, 'each client has its own id')
  for (const id of ids) t.match(id, /^0x[0-9a-f]{32}$/)
  t.equal(stats().nodeSubscribeCalls - before, 1, 'one eth_subscribe reached Geth')
  t.equal(stats().nodeSubscriptions, 1)

  const receipt = await tokens.transfer(Wallet.createRandom().address, 1n)
  for (const [i, client] of clients.entries()) {
    await client.until(() => client.notifications.some((n) => Number(n.result.number) === receipt.blockNumber))
    t.ok(client.notifications.every((n) => n.subscription === ids[i]), `client ${i} hears its own id`)
    const head = client.notifications.find((n) => Number(n.result.number) === receipt.blockNumber)!.result
    t.equal(head.hash, receipt.blockHash)
  }

  t.same((await clients[0]!.call('eth_unsubscribe', [ids[0]], 'u')).result, true)
  t.same((await clients[0]!.call('eth_unsubscribe', [ids[0]], 'u2')).result, false, 'a second unsubscribe answers false')
  t.same((await clients[1]!.call('eth_unsubscribe', [ids[0]], 'u3')).result, false, 'another connection\'s id answers false')
  t.equal(stats().nodeSubscriptions, 1, 'still listened to')
  const heard = clients[0]!.notifications.length
  const next = await tokens.transfer(Wallet.createRandom().address, 1n)
  await clients[1]!.until(() => clients[1]!.notifications.some((n) => Number(n.result.number) === next.blockNumber))
  t.equal(clients[0]!.notifications.length, heard, 'the unsubscribed client hears nothing more')

  await clients[1]!.call('eth_unsubscribe', [ids[1]])
  clients[2]!.socket.close()
  clients[3]!.socket.terminate()
  await clients[1]!.until(() => stats().topics === 0)
  t.equal(stats().nodeSubscriptions, 0, 'ended on Geth when the last client left')
})

t.test('logs: the filter is heard as given, spellings of one filter share a subscription', async (t) => {
  const to = Wallet.createRandom().address
  const other = Wallet.createRandom().address
  const before = stats().nodeSubscribeCalls
  const [lower, mixed, elsewhere, everything] = await Promise.all([1, 2, 3, 4].map(async () => await connectWsRpc(t, wsUrlOf(url))))
  const lowerId = await subscribe(lower!, ['logs', { address: tokens.address.toLowerCase(), topics: [TRANSFER_TOPIC, null, tokens.topicOf(to)] }])
  // The same filter: a one-address list, upper-case hex, a topic as a list of one.
  await subscribe(mixed!, ['logs', { address: [tokens.address], topics: [[TRANSFER_TOPIC.toUpperCase().replace('0X', '0x')], null, [tokens.topicOf(to)]] }])
  await subscribe(elsewhere!, ['logs', { address: tokens.address, topics: [TRANSFER_TOPIC, null, tokens.topicOf(other)] }])
  await subscribe(everything!, ['logs'])
  t.equal(stats().nodeSubscribeCalls - before, 3, 'two spellings of one filter made one subscription to Geth')

  const receipt = await tokens.transfer(to, 5n)
  for (const client of [lower!, mixed!, everything!]) {
    await client.until(() => client.notifications.some((n) => n.result.transactionHash === receipt.hash))
  }
  const log = lower!.notifications.find((n) => n.result.transactionHash === receipt.hash)!
  t.equal(log.subscription, lowerId)
  t.equal(log.result.address.toLowerCase(), tokens.address.toLowerCase())
  t.same(log.result.topics.slice(0, 1), [TRANSFER_TOPIC])
  t.equal(BigInt(log.result.data), 5n)
  t.equal(elsewhere!.notifications.length, 0, 'a filter for another recipient hears nothing')
})

t.test('newPendingTransactions: each transaction hash as it enters the pool', async (t) => {
  const client = await connectWsRpc(t, wsUrlOf(url))
  await subscribe(client, ['newPendingTransactions'])
  const hash = await tokens.sendValue()
  await client.until(() => client.notifications.some((n) => n.result === hash))
  t.pass('heard')
})

t.test('a batch may subscribe; its events come after its answer', async (t) => {
  const client = await connectWsRpc(t, wsUrlOf(url))
  const answers = await client.send([
    { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] },
    { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] }
  ])
  t.match(answers[0].result, /^0x[0-9a-f]{32}$/)
  t.match(answers[1].result, /^0x/)
  const receipt = await tokens.transfer(Wallet.createRandom().address, 1n)
  await client.until(() => client.notifications.some((n) => Number(n.result.number) === receipt.blockNumber))
  t.equal(client.notifications[0]!.subscription, answers[0].result)
})
