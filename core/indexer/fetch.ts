// Fetch stage: one JSON-RPC batch for a range of blocks (block with full
// transactions, receipts, call traces), checked at the boundary.
import { RpcResponseError, type RpcClient } from '../rpc/client.ts'
import { RetryableError } from '../errors.ts'
import type { BlockBundle, Hex, RpcBlock, RpcReceipt, RpcTraceResult } from './types.ts'

const CALL_TRACER = { tracer: 'callTracer', timeout: '60s' }

const hex = (n: number): Hex => `0x${n.toString(16)}`

/** The calls that fetch block `n`'s bundle, in order (test/fixtures/rpc records the same ones). */
export function blockBundleCalls (n: number): Array<{ method: string, params: unknown[] }> {
  return [
    { method: 'eth_getBlockByNumber', params: [hex(n), true] },
    { method: 'eth_getBlockReceipts', params: [hex(n)] },
    // The genesis block has no transactions or seal, and Geth refuses to trace it.
    ...(n === 0
      ? []
      : [
          { method: 'debug_traceBlockByNumber', params: [hex(n), CALL_TRACER] },
          // Geth recovers the seal in native code with a cache: a hundred times
          // cheaper than doing it here. Without the clique API, decode recovers it.
          { method: 'clique_getSigner', params: [hex(n)] }
        ])
  ]
}

/** The bundles for blocks from..to (inclusive), in order. */
export async function fetchBlockBundles (rpc: RpcClient, from: number, to: number, signal?: AbortSignal): Promise<BlockBundle[]> {
  const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i)
  const calls = numbers.flatMap(blockBundleCalls)
  const answers = await rpc.batchAnswers(calls, signal)
  const result = (i: number): unknown => {
    const { result, error } = answers[i]!
    if (error !== undefined) throw new RpcResponseError(error.code, `${calls[i]!.method}: ${error.message}`, error.data)
    return result
  }
  const bundles: BlockBundle[] = []
  let i = 0
  for (const n of numbers) {
    const block = result(i++) as RpcBlock | null
    const receipts = result(i++) as RpcReceipt[] | null
    const traces = n === 0 ? [] : result(i++) as RpcTraceResult[] | null
    const signer = n === 0 ? undefined : answers[i++]!.result as Hex | undefined
    bundles.push({ ...checkBundle(n, block, receipts, traces), signer: signer?.toLowerCase() as Hex | undefined })
  }
  return bundles
}

/** Block numbers and hashes only, for walking back to a common ancestor. */
export async function fetchBlockHashes (rpc: RpcClient, numbers: number[], signal?: AbortSignal): Promise<Array<Hex | null>> {
  const blocks = await rpc.batch<{ hash: Hex } | null>(numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), false] })), signal)
  return blocks.map((b) => b?.hash ?? null)
}

export async function fetchHeadNumber (rpc: RpcClient, signal?: AbortSignal): Promise<number> {
  return Number(await rpc.call<Hex>('eth_blockNumber', [], signal))
}

/** The node's head block number and hash: a changed hash at our height is a reorg too. */
export async function fetchHead (rpc: RpcClient, signal?: AbortSignal): Promise<{ number: number, hash: Hex }> {
  const block = await rpc.call<{ number: Hex, hash: Hex }>('eth_getBlockByNumber', ['latest', false], signal)
  return { number: Number(block.number), hash: block.hash }
}

function checkBundle (n: number, block: RpcBlock | null, receipts: RpcReceipt[] | null, traces: RpcTraceResult[] | null): BlockBundle {
  // The node moved back (a reorg) or has not got this far: try again later.
  if (block === null || receipts === null || traces === null) throw new RetryableError(`block ${n} is not available from the node`)
  if (Number(block.number) !== n) throw new RetryableError(`asked for block ${n}, got ${block.number}`)
  // Fetched by number in separate calls, they may straddle a reorg: all three must describe this block.
  if (receipts.length !== block.transactions.length || (n > 0 && traces.length !== block.transactions.length)) {
    throw new RetryableError(`block ${n}: ${block.transactions.length} transactions, ${receipts.length} receipts, ${traces.length} traces`)
  }
  for (const [i, tx] of block.transactions.entries()) {
    const receipt = receipts[i]!
    if (receipt.transactionHash !== tx.hash || receipt.blockHash !== block.hash) throw new RetryableError(`block ${n}: receipt ${i} is not for ${tx.hash} in ${block.hash}`)
    const traced = traces[i]?.txHash
    if (traced !== undefined && traced !== tx.hash) throw new RetryableError(`block ${n}: trace ${i} is not for ${tx.hash}`)
  }
  return { block, receipts, traces }
}
