// Waiting for a transaction to be mined, by polling its receipt: Geth has no
// push for one transaction over HTTP, and clique blocks come every few seconds.
import { setTimeout as sleep } from 'node:timers/promises'
import type { RpcClient } from '../rpc/client.ts'

const POLL_MS = 100

export type Receipt = { status: string, blockNumber: string }

/** The receipt once the transaction is in a block; undefined if it is not within timeoutMs. */
export async function waitForReceipt (rpc: RpcClient, hash: string, timeoutMs: number): Promise<Receipt | undefined> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const receipt = await rpc.call<Receipt | null>('eth_getTransactionReceipt', [hash])
    if (receipt !== null) return receipt
    if (Date.now() >= deadline) return undefined
    await sleep(POLL_MS)
  }
}
