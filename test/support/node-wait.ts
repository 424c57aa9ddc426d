// Waiting on nodes of a network of several: until a condition holds, a node's
// head, the hash it has at a height. Shared by the network test and the
// three-signer proof.
import { setTimeout as sleep } from 'node:timers/promises'
import type { RpcClient } from '../../core/rpc/client.ts'

const POLL_MS = 250
/** A sync or a vote over loopback: seconds on a quiet machine; the rest is a loaded one's slack. */
export const NODE_WAIT_MS = 60_000

/** Polls `fn` until it returns something other than undefined or false (a throw counts as not yet). */
export async function until<T> (what: string, fn: () => Promise<T | undefined | false>, timeoutMs = NODE_WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await fn().catch(() => undefined)
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(POLL_MS)
  }
}

export const head = async (rpc: RpcClient): Promise<number> => Number(await rpc.call<string>('eth_blockNumber'))
export const hashAt = async (rpc: RpcClient, n: number): Promise<string> => (await rpc.call<{ hash: string }>('eth_getBlockByNumber', ['0x' + n.toString(16), false])).hash
