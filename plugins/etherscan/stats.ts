// The stats module: the native coin's supply (core/queries/etherscan-transaction.ts readCoinSupply).
import { readCoinSupply } from '../../core/queries/etherscan-transaction.ts'
import type { EtherscanAction } from './action.ts'
import { ok } from './envelope.ts'

const ethsupply: EtherscanAction = {
  summary: 'The native coin\'s supply in wei: the genesis allocation less the base fees burnt',
  params: {},
  required: [],
  result: { type: 'string', description: 'Wei' },
  async run (_params, { db }) {
    return ok(await readCoinSupply(db))
  }
}

export const STATS_ACTIONS: Record<string, EtherscanAction> = { ethsupply }
