// web3's WebSocketProvider, used unchanged against the gateway's /ws: a call,
// subscribe('newBlockHeaders'), a filtered logs subscription hearing a real
// Transfer event, and newPendingTransactions, all through Geth's subscriptions.
import t from 'tap'
import { Wallet } from 'ethers'
import { Web3, WebSocketProvider as Web3WebSocketProvider } from 'web3'
import { TRANSFER_TOPIC } from '../../support/token-events.ts'
import { buildWsLibraryChain } from '../../support/ws-library.ts'

const { tokens, wsUrl, until, subscribedThree, transferUntil } = await buildWsLibraryChain(t)

t.test('web3 WebSocketProvider: a call, newBlockHeaders, logs, newPendingTransactions', async (t) => {
  const web3 = new Web3(new Web3WebSocketProvider(wsUrl))
  t.teardown(async () => {
    await web3.eth.clearSubscriptions()
    web3.provider?.disconnect?.(1000, 'done')
  })
  t.equal(await web3.eth.getChainId(), 793788n)

  const blocks: bigint[] = []
  const heads = await web3.eth.subscribe('newBlockHeaders')
  heads.on('data', (header) => { blocks.push(BigInt(header.number!)) })
  const to = Wallet.createRandom().address
  const logs: Array<{ transactionHash?: string, topics?: string[] }> = []
  // web3's types leave out null, the standard's wildcard, which it sends as it is.
  const anySender = null as unknown as string
  const logSubscription = await web3.eth.subscribe('logs', { address: tokens.address, topics: [TRANSFER_TOPIC, anySender, tokens.topicOf(to)] })
  logSubscription.on('data', (log) => { logs.push(log as never) })
  const pending: string[] = []
  const pendingSubscription = await web3.eth.subscribe('newPendingTransactions')
  pendingSubscription.on('data', (hash) => { pending.push(String(hash)) })
  await subscribedThree()

  await transferUntil((blockNumber) => blocks.includes(BigInt(blockNumber)), 'a block')
  const receipt = await tokens.transfer(to, 11n)
  await until(() => logs.some((l) => l.transactionHash === receipt.hash), 'the Transfer log')
  t.equal(logs.length, 1, 'only the filtered recipient\'s log')
  t.equal(logs[0]!.topics![2], tokens.topicOf(to))
  const hash = await tokens.sendValue()
  await until(() => pending.includes(hash), 'the pending transaction')
})
