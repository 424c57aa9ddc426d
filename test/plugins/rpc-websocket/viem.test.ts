// viem's webSocket transport, used unchanged against the gateway's /ws: a
// call, watchBlocks, watchEvent with an indexed argument hearing a real
// Transfer event, and watchPendingTransactions, all through Geth's subscriptions.
import t from 'tap'
import { Wallet } from 'ethers'
import { createPublicClient, parseAbiItem, webSocket } from 'viem'
import { buildWsLibraryChain } from '../../support/ws-library.ts'

const { tokens, wsUrl, until, subscribedThree, transferUntil } = await buildWsLibraryChain(t)

t.test('viem webSocket transport: a call, watchBlocks, watchEvent, watchPendingTransactions', async (t) => {
  // No reconnection: when the test's gateway closes, viem would otherwise keep dialling it.
  const client = createPublicClient({ transport: webSocket(wsUrl, { reconnect: false }) })
  t.equal(await client.getChainId(), 793788)

  const blocks: bigint[] = []
  // viem may call onBlock without a block as its subscription ends.
  const unwatchBlocks = client.watchBlocks({ onBlock: (block) => { if (block?.number != null) blocks.push(block.number) } })
  const to = Wallet.createRandom().address as `0x${string}`
  const logs: Array<{ transactionHash: string | null, args: { to?: string, value?: bigint } }> = []
  const unwatchEvent = client.watchEvent({
    address: tokens.address as `0x${string}`,
    event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
    args: { to },
    onLogs: (heard) => { logs.push(...heard) }
  })
  const pending: string[] = []
  const unwatchPending = client.watchPendingTransactions({ onTransactions: (hashes) => { pending.push(...hashes) } })
  t.teardown(async () => {
    unwatchBlocks()
    unwatchEvent()
    unwatchPending()
    ;(await client.transport.getRpcClient()).close()
  })
  await subscribedThree()

  await transferUntil((blockNumber) => blocks.includes(BigInt(blockNumber)), 'a block')
  const receipt = await tokens.transfer(to, 9n)
  await until(() => logs.some((l) => l.transactionHash === receipt.hash), 'the Transfer log')
  t.equal(logs.length, 1, 'only the filtered recipient\'s log')
  t.equal(logs[0]!.args.to!.toLowerCase(), to.toLowerCase())
  t.equal(logs[0]!.args.value, 9n)
  const hash = await tokens.sendValue()
  await until(() => pending.includes(hash), 'the pending transaction')
})
