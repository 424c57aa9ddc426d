// The stats module: the native coin's supply (core/queries/etherscan/transaction.ts readCoinSupply)
// and a token's (the index's total supply, read from the token when its transfers are indexed).
import type { EtherscanAction } from './action.ts'
import { notOk, ok } from './envelope.ts'
import { readAddress } from './params.ts'
import { CONTRACT_ADDRESS_PARAM, INVALID_CONTRACT_ADDRESS, TOKEN_NOT_FOUND } from './token.ts'

const ethsupply: EtherscanAction = {
  summary: 'The native coin\'s supply in wei: the genesis allocation less the base fees burnt',
  params: {},
  required: [],
  result: { type: 'string', description: 'Wei' },
  async run (_params, { queries }) {
    return ok(await queries.etherscan.readCoinSupply())
  }
}

const tokensupply: EtherscanAction = {
  summary: 'A token\'s total supply in its smallest unit',
  params: CONTRACT_ADDRESS_PARAM,
  required: ['contractaddress'],
  result: { type: 'string', description: 'The token\'s smallest unit' },
  async run (params, { queries }) {
    const token = await queries.findToken(readAddress(params.contractaddress, INVALID_CONTRACT_ADDRESS))
    return token === undefined ? notOk(TOKEN_NOT_FOUND) : ok(token.total_supply ?? '0')
  }
}

export const STATS_ACTIONS: Record<string, EtherscanAction> = { ethsupply, tokensupply }
