// Whether the node holds a transaction the index does not: only sealed
// transactions are indexed, so a summary of one still in the pool would
// otherwise answer 404 as if it did not exist. Blockscout answers null for it.
import type { RpcClient } from '../rpc/client.ts'

type RpcTransactionPlace = { blockNumber: string | null } | null

/** True when the node knows `hash` (0x-hex) and no block holds it yet. */
export async function isPendingTransaction (rpc: RpcClient, hash: string): Promise<boolean> {
  const found = await rpc.call<RpcTransactionPlace>('eth_getTransactionByHash', [hash])
  return found !== null && found.blockNumber === null
}
