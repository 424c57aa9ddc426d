// How stale a kept answer can be: from Geth having a new block to the
// gateway answering for it. For each of `blocks` transfers (clique period 0
// seals each at once), eth_blockNumber is asked of Geth and of the gateway
// over and over, one request in flight each; the lag is the time from Geth's
// first answer with the new block to the gateway's. Its resolution is one
// request's round trip (a fraction of a millisecond); 0 means within it.
import { Wallet } from 'ethers'
import { createRpcClient, type RpcClient } from '../../core/rpc/client.ts'
import { signTransfer } from './rpc-workloads.ts'

export type StalenessFigures = { blocks: number, p50Ms: number, p99Ms: number, maxMs: number, samplesMs: number[] }

const TIMEOUT_MS = 10_000

export async function measureStaleness (o: { gethUrl: string, gatewayUrl: string, senderKey: string, blocks: number }): Promise<StalenessFigures> {
  const geth = createRpcClient({ url: o.gethUrl, timeoutMs: TIMEOUT_MS, connections: 2 })
  const gateway = createRpcClient({ url: o.gatewayUrl, timeoutMs: TIMEOUT_MS, connections: 2 })
  const sender = new Wallet(o.senderKey)
  try {
    let nonce = Number(await geth.call<string>('eth_getTransactionCount', [sender.address, 'pending']))
    const samplesMs: number[] = []
    for (let i = 0; i < o.blocks; i++) {
      const raw = await signTransfer(sender, sender.address, nonce++)
      const head = Number(await geth.call<string>('eth_blockNumber'))
      await gateway.call('eth_blockNumber')
      const sent = geth.call('eth_sendRawTransaction', [raw])
      const [atGeth, atGateway] = await Promise.all([firstAbove(geth, head), firstAbove(gateway, head), sent])
      samplesMs.push(Math.max(0, atGateway - atGeth))
    }
    const sorted = [...samplesMs].sort((a, b) => a - b)
    const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
    return { blocks: o.blocks, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted[sorted.length - 1]!, samplesMs }
  } finally {
    await Promise.all([geth.close(), gateway.close()])
  }
}

/** When `rpc` first answers eth_blockNumber above `head` (performance.now()). */
async function firstAbove (rpc: RpcClient, head: number): Promise<number> {
  const deadline = performance.now() + TIMEOUT_MS
  while (performance.now() < deadline) {
    if (Number(await rpc.call<string>('eth_blockNumber')) > head) return performance.now()
  }
  throw new Error(`no block above ${head} at ${rpc.url} within ${TIMEOUT_MS} ms`)
}

export function printStaleness (f: StalenessFigures): void {
  console.log(`\nHow stale an answer can be: Geth answering a new block to the gateway answering it, ${f.blocks} blocks: p50 ${f.p50Ms.toFixed(2)} ms, p99 ${f.p99Ms.toFixed(2)} ms, max ${f.maxMs.toFixed(2)} ms\n`)
}
