// What the dapp-library tests of the JSON-RPC WebSocket share: a gateway on
// a fresh chain with a token whose transfers make real Transfer events, and
// waits for what a library hears.
import { setTimeout as sleep } from 'node:timers/promises'
import { Wallet } from 'ethers'
import { build } from '../helper.ts'
import { wsUrlOf } from './ws-rpc.ts'
import { deployTokenEvents } from './token-events.ts'

type Tap = Parameters<typeof build>[0]

export async function buildWsLibraryChain (t: Tap) {
  const { app, url, chain } = await build(t)
  const tokens = await deployTokenEvents(url, chain.account)
  const wsUrl = wsUrlOf(url)

  async function until (check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await sleep(20)
    }
  }

  return {
    tokens,
    wsUrl,
    until,
    /** The library subscribed through Geth's subscriptions (newHeads, the logs filter, pending transactions), not by polling. */
    async subscribedThree (): Promise<void> {
      await until(() => app.rpcWebsocket.subscriptionStats()!.topics === 3, 'three subscriptions on the hub')
    },
    /** Transfers to a fresh address until `heard` holds: a library may start listening a moment after it says so. */
    async transferUntil (heard: (blockNumber: number) => boolean, what: string): Promise<void> {
      const deadline = Date.now() + 60_000
      for (;;) {
        const receipt = await tokens.transfer(Wallet.createRandom().address, 3n)
        const sent = Date.now()
        while (Date.now() - sent < 2000) {
          if (heard(receipt.blockNumber)) return
          await sleep(20)
        }
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      }
    }
  }
}
