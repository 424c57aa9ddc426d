// Whether our Geth seals follows the chain, not the genesis we started from:
// a joined instance's key is not a signer until the signers vote it in
// (`npm run ops -- signers propose`), and a signer voted out must stop. Every
// few seconds this asks clique_getSigners at the head and, when the answer
// changes, starts or stops the miner to match. Until it is a signer, Geth does not try to seal (no
// "unauthorized signer" on every block) and the sealer watchdog stays quiet.
import type { Logger } from '../core/logger.ts'
import type { RpcClient } from '../core/rpc/client.ts'
import { realClock, type Clock } from '../core/clock.ts'

export const SIGNER_ROLE_INTERVAL_MS = 2000

export type SignerRole = {
  /** Whether the signer was in clique_getSigners at the last look (undefined before the first answer). */
  readonly authorized: boolean | undefined
  /** One look now: start() waits for it, so a signer seals as soon as Geth is up. */
  check (): Promise<void>
  /** Geth restarted (with --mine or without, as at start): the next look acts whatever it finds. */
  forget (): void
  stop (): void
}

export type SignerRoleOptions = { rpc: RpcClient, signer: string, log: Logger, clock?: Clock }

export function startSignerRole ({ rpc, signer, log, clock = realClock }: SignerRoleOptions): SignerRole {
  let authorized: boolean | undefined
  let looking = false
  const check = async (): Promise<void> => {
    if (looking) return
    looking = true
    try {
      const [signers, mining] = await rpc.batch<string[] | boolean>([
        { method: 'clique_getSigners', params: [] },
        { method: 'eth_mining', params: [] }
      ])
      const now = (signers as string[]).some((address) => address.toLowerCase() === signer.toLowerCase())
      // Only on a change (or the first look after a start): a stalled sealer
      // is the sealer watchdog's to restart, and it counts its restarts.
      if (now === authorized) return
      log.info({ signer, authorized: now }, now ? 'this node\'s key is a clique signer: sealing' : 'this node\'s key is not a clique signer: not sealing until voted in')
      // eth_mining is false while Geth syncs even after miner_start (it resumes
      // by itself); starting then is harmless.
      if (now && mining !== true) await rpc.call('miner_start', [])
      if (!now && mining === true) await rpc.call('miner_stop', [])
      authorized = now
    } catch (err) {
      log.debug({ err: (err as Error).message }, 'signer role: the node did not answer')
    } finally {
      looking = false
    }
  }
  const timer = clock.setInterval(async () => await check(), SIGNER_ROLE_INTERVAL_MS)
  timer.unref()
  return {
    get authorized () { return authorized },
    check,
    forget: () => { authorized = undefined },
    stop: () => clock.clear(timer)
  }
}
