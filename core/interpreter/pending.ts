// Whether the node holds a transaction the index does not: only sealed
// transactions are indexed, so a summary of one still in the pool would
// otherwise answer 404 as if it did not exist. Blockscout answers null for it.
import { RpcResponseError, RpcUnavailableError, type RpcClient } from '../rpc/client.ts'

type RpcTransactionPlace = { blockNumber: string | null } | null

/**
 * True when the node knows `hash` (0x-hex) and no block holds it yet; false
 * when it does not, and when it cannot say: a node down or still indexing its
 * transactions (Geth answers an error until it has) leaves the index's own
 * answer, not found, rather than failing the request.
 */
export async function isPendingTransaction (rpc: RpcClient, hash: string): Promise<boolean> {
  try {
    const found = await rpc.call<RpcTransactionPlace>('eth_getTransactionByHash', [hash])
    return found !== null && found.blockNumber === null
  } catch (err) {
    if (err instanceof RpcResponseError || err instanceof RpcUnavailableError) return false
    throw err
  }
}
