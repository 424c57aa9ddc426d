// A clique sealer with period 0 seals a block as soon as a transaction is
// pending, but it can stop doing so with transactions still pending
// (go-ethereum#21189): they then wait until the next transaction arrives, or
// forever. This watchdog looks every few seconds and, when transactions were
// pending at two looks in a row with no new block between them, stops and
// starts the miner, which makes it seal what is pending. A pending
// transaction no block can take (a fee cap under the base fee, which on an
// idle period-0 chain never falls) looks the same, and restarting does not
// help it: while the head stands still, each further restart waits twice as
// long as the one before (up to 5 minutes). Geth down or restarting is not
// its business: a failed look is skipped; nor is a node whose key is not (yet)
// a signer (a joined instance before it is voted in): its pending
// transactions wait for the signers, not for it.
import type { Logger } from '../core/logger.ts'
import type { RpcClient } from '../core/rpc/client.ts'
import { realClock, type Clock } from '../core/clock.ts'

export const SEALER_WATCHDOG_INTERVAL_MS = 2000
const MAX_BACKOFF_MS = 5 * 60_000

export type SealerWatchdog = { stop (): void }

type Look = { pending: number, head: number }

export type SealerWatchdogOptions = {
  rpc: RpcClient
  log: Logger
  clock?: Clock
  /** false while this node's key is not a clique signer: nothing to restart then. */
  isSigner?: () => boolean | undefined
}

export function startSealerWatchdog ({ rpc, log, clock = realClock, isSigner = () => true }: SealerWatchdogOptions): SealerWatchdog {
  let last: Look | undefined
  let looking = false
  // Restarts since the head last moved, and when the next one may come.
  let restarts = 0
  let nextRestartAt = 0
  const look = async (): Promise<void> => {
    if (looking) return
    looking = true
    try {
      const [status, head] = await rpc.batch<string | { pending: string }>([
        { method: 'txpool_status', params: [] },
        { method: 'eth_blockNumber', params: [] }
      ])
      const now = { pending: Number((status as { pending: string }).pending), head: Number(head as string) }
      if (last !== undefined && now.head !== last.head) [restarts, nextRestartAt] = [0, 0]
      const stalled = isSigner() !== false && last !== undefined && last.pending > 0 && now.pending > 0 && now.head === last.head
      if (stalled && clock.now() >= nextRestartAt) {
        log.warn({ pending: now.pending, head: now.head, restarts }, 'clique sealer stalled with transactions pending (go-ethereum#21189): restarting it')
        await rpc.call('miner_stop', [])
        await rpc.call('miner_start', [])
        restarts++
        nextRestartAt = clock.now() + Math.min(MAX_BACKOFF_MS, SEALER_WATCHDOG_INTERVAL_MS * 2 ** restarts)
      }
      last = now
    } catch (err) {
      last = undefined
      log.debug({ err: (err as Error).message }, 'sealer watchdog: the node did not answer')
    } finally {
      looking = false
    }
  }
  // look() catches everything itself; the promise is for a fake clock to wait on.
  const timer = clock.setInterval(async () => await look(), SEALER_WATCHDOG_INTERVAL_MS)
  timer.unref()
  return { stop: () => clock.clear(timer) }
}
