// The stats module: the native coin's supply (core/queries/etherscan/transaction.ts readCoinSupply).
import type { EtherscanAction } from './action.ts'
import { ok } from './envelope.ts'

const ethsupply: EtherscanAction = {
  summary: 'The native coin\'s supply in wei: the genesis allocation less the base fees burnt',
  params: {},
  required: [],
  result: { type: 'string', description: 'Wei' },
  async run (_params, { queries }) {
    return ok(await queries.etherscan.readCoinSupply())
  }
}

export const STATS_ACTIONS: Record<string, EtherscanAction> = { ethsupply }
