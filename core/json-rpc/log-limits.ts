// A public endpoint needs the caps Geth does not have: a widest block range
// for eth_getLogs / eth_newFilter and a most-results cap for eth_getLogs.
import type { RpcClient } from '../rpc/client.ts'
import { JsonRpcError } from './errors.ts'

export type LogLimits = {
  /** Throws LIMIT_EXCEEDED when the filter spans more blocks than allowed. */
  checkRange (filter: Record<string, unknown>): Promise<void>
  /** Returns LIMIT_EXCEEDED when the node found more logs than allowed. */
  checkResults (result: unknown): JsonRpcError | undefined
}

export type LogLimitsOptions = { rpc: RpcClient, maxLogRange: number, maxLogResults: number }

export function createLogLimits ({ rpc, maxLogRange, maxLogResults }: LogLimitsOptions): LogLimits {
  async function toNumber (tag: unknown, head: () => Promise<number>): Promise<number> {
    if (tag === undefined || tag === null || tag === 'latest' || tag === 'pending' || tag === 'safe' || tag === 'finalized') return await head()
    if (tag === 'earliest') return 0
    return Number(tag)
  }

  return {
    async checkRange (filter) {
      if (filter.blockHash !== undefined) return
      let headNumber: number | undefined
      const head = async () => (headNumber ??= Number(await rpc.call<string>('eth_blockNumber')))
      const from = await toNumber(filter.fromBlock, head)
      const to = await toNumber(filter.toBlock, head)
      const span = to - from + 1
      if (span > maxLogRange) {
        throw new JsonRpcError('LIMIT_EXCEEDED', `block range of ${span} blocks is larger than the limit of ${maxLogRange}; query a narrower range`)
      }
    },
    checkResults (result) {
      if (Array.isArray(result) && result.length > maxLogResults) {
        return new JsonRpcError('LIMIT_EXCEEDED', `query returned more than ${maxLogResults} results; query a narrower block range`)
      }
      return undefined
    }
  }
}
