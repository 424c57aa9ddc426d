// What runs against the gateway while a fault is injected: value transfers
// sent through its JSON-RPC (so the node seals blocks the indexer must
// follow), and a steady JSON-RPC read load whose every answer and latency is
// recorded, to show what clients see while a part is down.
import { setTimeout as sleep } from 'node:timers/promises'
import { Wallet } from 'ethers'
import { CHAIN_ID } from '../../core/config.ts'

const GWEI = 10n ** 9n
const TRANSFER_GAS = 21_000n
const TRANSFER_INTERVAL_MS = 100
const CLIENT_TIMEOUT_MS = 120_000

export type RpcAnswer = { status: number, body: any, ms: number }

/** One JSON-RPC call; a transport failure answers status 0. */
/** `path`: appended to `url` (the endpoint's `/rpc` unless told; `''` for a URL that names its own, such as `/rpc/<key>`). */
export async function callRpc (url: string, method: string, params: unknown[] = [], path = '/rpc'): Promise<RpcAnswer> {
  const startedAt = performance.now()
  try {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS)
    })
    const body = await response.json().catch(() => undefined)
    return { status: response.status, body, ms: performance.now() - startedAt }
  } catch {
    return { status: 0, body: undefined, ms: performance.now() - startedAt }
  }
}

export async function nodeHead (url: string): Promise<number> {
  const { body } = await callRpc(url, 'eth_blockNumber')
  if (typeof body?.result !== 'string') throw new Error(`eth_blockNumber: ${JSON.stringify(body)}`)
  return Number(body.result)
}

export type Transfers = { stop (): Promise<{ sent: number, failed: number }> }

/** Transfers from `wallet` through `url()` (the gateway of the moment), one after another, `intervalMs` apart; failures are counted, not thrown. */
export function startTransfers (url: () => string, wallet: Wallet, intervalMs = TRANSFER_INTERVAL_MS): Transfers {
  const state = { running: true }
  let sent = 0
  let failed = 0
  const loop = (async () => {
    while (state.running) {
      const nonce = await callRpc(url(), 'eth_getTransactionCount', [wallet.address, 'pending'])
      if (typeof nonce.body?.result === 'string') {
        const raw = await wallet.signTransaction({
          type: 2,
          chainId: CHAIN_ID,
          nonce: Number(nonce.body.result),
          to: Wallet.createRandom().address,
          value: 1n,
          gasLimit: TRANSFER_GAS,
          maxFeePerGas: 2n * GWEI,
          maxPriorityFeePerGas: GWEI
        })
        const answer = await callRpc(url(), 'eth_sendRawTransaction', [raw])
        if (typeof answer.body?.result === 'string') sent++
        else failed++
      } else {
        failed++
      }
      await sleep(intervalMs)
    }
  })()
  return { stop: async () => { state.running = false; await loop; return { sent, failed } } }
}

export type ReadLoadFigures = {
  requests: number
  results: number
  /** -32603 answers: the node is down. */
  internalErrors: number
  /** Anything else: another error, a transport failure, a body that is not JSON-RPC. */
  other: number
  firstOther?: string
  maxMs: number
  /** The slowest -32603: how long a client waited to learn the node is down. */
  maxInternalErrorMs: number
}

export type ReadLoad = { stop (): Promise<ReadLoadFigures> }

/** `concurrency` loops of eth_blockNumber and eth_getBalance until stopped. */
export function startReadLoad (url: string, address: string, concurrency: number): ReadLoad {
  const state = { running: true }
  const f: ReadLoadFigures = { requests: 0, results: 0, internalErrors: 0, other: 0, maxMs: 0, maxInternalErrorMs: 0 }
  const loops = Array.from({ length: concurrency }, async (_, i) => {
    while (state.running) {
      const answer = i % 2 === 0 ? await callRpc(url, 'eth_blockNumber') : await callRpc(url, 'eth_getBalance', [address, 'latest'])
      f.requests++
      f.maxMs = Math.max(f.maxMs, answer.ms)
      if (answer.body?.result !== undefined) {
        f.results++
      } else if (answer.body?.error?.code === -32603) {
        f.internalErrors++
        f.maxInternalErrorMs = Math.max(f.maxInternalErrorMs, answer.ms)
      } else {
        f.other++
        f.firstOther ??= `HTTP ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 200)}`
      }
    }
  })
  return { stop: async () => { state.running = false; await Promise.all(loops); return f } }
}
