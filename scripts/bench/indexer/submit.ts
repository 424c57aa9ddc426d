// Sending signed transactions straight to Geth's private RPC in JSON-RPC
// batches, and waiting until its pool has sealed them all into blocks.
import { setTimeout as sleep } from 'node:timers/promises'
import type { RpcClient } from '../../../core/rpc/client.ts'

// Geth answers batches of up to 1000 calls; smaller ones keep each answer quick.
const SEND_BATCH = 200
const POOL_POLL_MS = 2
const POOL_DRAIN_TIMEOUT_MS = 60_000

/** Sends in order (a sender's nonces must arrive in order); returns the transaction hashes. */
export async function sendRawTransactions (rpc: RpcClient, raws: string[]): Promise<string[]> {
  const hashes: string[] = []
  for (let i = 0; i < raws.length; i += SEND_BATCH) {
    const batch = raws.slice(i, i + SEND_BATCH).map((raw) => ({ method: 'eth_sendRawTransaction', params: [raw] }))
    hashes.push(...await rpc.batch<string>(batch))
  }
  return hashes
}

/**
 * Resolves once Geth's pool is empty: with clique period 0 every pending
 * transaction is sealed at once, so an empty pool means all are in blocks.
 * (A transaction sits in `queued` before it is promoted, so both count.)
 */
export async function waitForEmptyPool (rpc: RpcClient, timeoutMs = POOL_DRAIN_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const status = await rpc.call<{ pending: string, queued: string }>('txpool_status')
    const waiting = Number(status.pending) + Number(status.queued)
    if (waiting === 0) return
    if (Date.now() > deadline) throw new Error(`Geth's pool still holds ${waiting} transactions after ${timeoutMs} ms (${JSON.stringify(status)})`)
    await sleep(POOL_POLL_MS)
  }
}
