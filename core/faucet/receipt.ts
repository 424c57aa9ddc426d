// Waiting for a transaction to be mined, by polling its receipt: Geth has no
// push for one transaction over HTTP, and clique blocks come every few seconds.
import { setTimeout as sleep } from 'node:timers/promises'
import { RpcResponseError, type RpcClient } from '../rpc/client.ts'

const POLL_MS = 100

export type Receipt = { status: string, blockNumber: string }

/** The receipt once the transaction is in a block; undefined if it is not within timeoutMs. */
export async function waitForReceipt (rpc: RpcClient, hash: string, timeoutMs: number): Promise<Receipt | undefined> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const receipt = await rpc.call<Receipt | null>('eth_getTransactionReceipt', [hash]).catch(notIndexedYet)
    if (receipt !== null) return receipt
    if (Date.now() >= deadline) return undefined
    await sleep(POLL_MS)
  }
}

/**
 * Right after Geth starts, its transaction index is still being built and a
 * receipt lookup answers this -32000 error (the message is all that tells it
 * apart): the transaction is not known yet, as with null.
 */
function notIndexedYet (err: unknown): null {
  if (err instanceof RpcResponseError && /transaction indexing is in progress/.test(err.message)) return null
  throw err
}
