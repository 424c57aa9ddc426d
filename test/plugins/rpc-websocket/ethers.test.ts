// ethers v6's WebSocketProvider, used unchanged against the gateway's /ws: a
// call, on('block'), a filtered logs subscription hearing a real Transfer event
// of a compiled contract, and on('pending'), all through Geth's subscriptions.
import t from 'tap'
import { Wallet, WebSocketProvider } from 'ethers'
import { TRANSFER_TOPIC } from '../../support/token-events.ts'
import { buildWsLibraryChain } from '../../support/ws-library.ts'

const { tokens, wsUrl, until, subscribedThree, transferUntil } = await buildWsLibraryChain(t)

t.test('ethers v6 WebSocketProvider: a call, blocks, filtered logs, pending transactions', async (t) => {
  const provider = new WebSocketProvider(wsUrl)
  t.teardown(async () => await provider.destroy())
  t.equal((await provider.getNetwork()).chainId, 793788n)
  t.ok(await provider.getBlockNumber() > 0)

  const blocks: number[] = []
  await provider.on('block', (n: number) => { blocks.push(n) })
  const to = Wallet.createRandom().address
  const logs: Array<{ transactionHash: string, topics: readonly string[] }> = []
  await provider.on({ address: tokens.address, topics: [TRANSFER_TOPIC, null, tokens.topicOf(to)] }, (log) => { logs.push(log) })
  const pending: string[] = []
  await provider.on('pending', (hash: string) => { pending.push(hash) })
  await subscribedThree()

  await transferUntil((blockNumber) => blocks.includes(blockNumber), 'a block')
  const receipt = await tokens.transfer(to, 7n)
  await until(() => logs.some((l) => l.transactionHash === receipt.hash), 'the Transfer log')
  t.equal(logs.length, 1, 'only the filtered recipient\'s log')
  t.equal(logs[0]!.topics[2], tokens.topicOf(to))
  const hash = await tokens.sendValue()
  await until(() => pending.includes(hash), 'the pending transaction')
})
