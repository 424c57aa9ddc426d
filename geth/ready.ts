import { setTimeout as sleep } from 'node:timers/promises'
import type { RpcClient } from '../core/rpc/client.ts'

const READY_POLL_MS = 100

export type WaitForRpcOptions = {
  timeoutMs: number
  /** Stops waiting early, e.g. when the process being waited for has exited. */
  isGivingUp?: () => string | undefined
  signal?: AbortSignal
}

/** Polls eth_blockNumber until the node answers; returns its head. */
export async function waitForRpc (rpc: RpcClient, { timeoutMs, isGivingUp, signal }: WaitForRpcOptions): Promise<number> {
  const deadline = Date.now() + timeoutMs
  let lastError = 'no answer yet'
  while (Date.now() < deadline) {
    signal?.throwIfAborted()
    const reason = isGivingUp?.()
    if (reason !== undefined) throw new Error(reason)
    try {
      return Number(await rpc.call<string>('eth_blockNumber'))
    } catch (err) {
      lastError = (err as Error).message
    }
    await sleep(READY_POLL_MS)
  }
  throw new Error(`${rpc.url} did not answer within ${timeoutMs} ms: ${lastError}`)
}
