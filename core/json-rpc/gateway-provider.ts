// An ethers provider whose every request goes through the gateway's own
// JSON-RPC client: eth_sendTransaction's reads and its submission then have
// the same RPC_TIMEOUT_MS and the same "node unavailable" error as every
// other method, and ethers never holds (nor names in its errors) the node's URL.
import { JsonRpcApiProvider, Network, type JsonRpcError, type JsonRpcPayload, type JsonRpcResult } from 'ethers'
import { RpcUnavailableError, type RpcClient } from '../rpc/client.ts'

export class GatewayProvider extends JsonRpcApiProvider {
  readonly #rpc: RpcClient

  constructor (rpc: RpcClient, chainId: number) {
    const network = Network.from(chainId)
    // cacheTimeout -1: ethers would otherwise reuse a pending nonce it read up to 250 ms ago.
    super(network, { staticNetwork: network, batchMaxCount: 1, cacheTimeout: -1 })
    this.#rpc = rpc
    this._start()
  }

  override async _send (payload: JsonRpcPayload | JsonRpcPayload[]): Promise<Array<JsonRpcResult | JsonRpcError>> {
    const { status, body } = await this.#rpc.send(JSON.stringify(payload))
    let parsed: unknown
    try {
      parsed = JSON.parse(body)
    } catch {
      throw new RpcUnavailableError(`node answered HTTP ${status} with a body that is not JSON`)
    }
    return (Array.isArray(parsed) ? parsed : [parsed]) as Array<JsonRpcResult | JsonRpcError>
  }
}

/** The RpcUnavailableError behind an ethers error, if the node did not answer. */
export function unavailableCause (err: unknown): RpcUnavailableError | undefined {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    if (e instanceof RpcUnavailableError) return e
    const wrapper = e as { error?: unknown, cause?: unknown, info?: { error?: unknown } }
    e = wrapper.error ?? wrapper.info?.error ?? wrapper.cause
  }
  return undefined
}
