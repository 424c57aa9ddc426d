// When Geth dies and the supervisor restarts it, the gateway subscribes on it
// again: a client keeps its socket and its subscription id, and hears new
// blocks again under that id. Real Geth, killed with SIGKILL.
import t from 'tap'
import { once } from 'node:events'
import { Wallet } from 'ethers'
import { build } from '../../helper.ts'
import { connectWsRpc, wsUrlOf } from '../../support/ws-rpc.ts'
import { deployTokenEvents } from '../../support/token-events.ts'

const { app, url, chain } = await build(t)
const tokens = await deployTokenEvents(url, chain.account)
const stats = () => app.rpcWebsocket.subscriptionStats()!

t.test('a newHeads subscriber keeps its id across a Geth crash and hears blocks again', async (t) => {
  const client = await connectWsRpc(t, wsUrlOf(url))
  const id = (await client.call('eth_subscribe', ['newHeads'])).result as string
  const calls = stats().nodeSubscribeCalls
  const supervisor = app.geth.supervisor!
  const restarted = once(supervisor, 'restarted')
  process.kill(supervisor.pid!, 'SIGKILL')
  await restarted
  await client.until(() => stats().nodeSubscriptions === 1)
  t.equal(stats().nodeSubscribeCalls, calls + 1, 'subscribed again on the new Geth')

  const receipt = await tokens.transfer(Wallet.createRandom().address, 1n)
  await client.until(() => client.notifications.some((n) => Number(n.result.number) === receipt.blockNumber))
  t.ok(client.notifications.every((n) => n.subscription === id), 'under the id it was given before the crash')
  t.equal((await client.call('eth_unsubscribe', [id])).result, true)
})
