// The token module's tokeninfo: what the index knows of a token (its name,
// symbol, decimals, standard and supply) in Etherscan's shape; the fields it
// fills from its own directory (links, description, price) are empty here.
import { listOf, strictObject, type EtherscanAction } from './action.ts'
import { notOk, ok } from './envelope.ts'
import { readAddress } from './params.ts'

export const INVALID_CONTRACT_ADDRESS = 'Invalid contractaddress format'
export const TOKEN_NOT_FOUND = 'Contract address not found'
export const CONTRACT_ADDRESS_PARAM = { contractaddress: { type: 'string', description: 'The token contract' } }

/** Etherscan's fields the index has nothing for: its directory's links and description. */
const DIRECTORY_FIELDS = ['description', 'website', 'email', 'blog', 'reddit', 'slack', 'facebook', 'twitter', 'bitcointalk', 'github',
  'telegram', 'wechat', 'linkedin', 'discord', 'whitepaper'] as const

const tokeninfo: EtherscanAction = {
  summary: 'A token\'s name, symbol, decimals (divisor), standard and total supply',
  params: CONTRACT_ADDRESS_PARAM,
  required: ['contractaddress'],
  result: listOf(strictObject(['contractAddress', 'tokenName', 'symbol', 'divisor', 'tokenType', 'totalSupply', 'blueCheckmark', ...DIRECTORY_FIELDS, 'tokenPriceUSD'])),
  async run (params, { queries }) {
    const token = await queries.findToken(readAddress(params.contractaddress, INVALID_CONTRACT_ADDRESS))
    if (token === undefined) return notOk(TOKEN_NOT_FOUND)
    return ok([{
      contractAddress: token.address,
      tokenName: token.name ?? '',
      symbol: token.symbol ?? '',
      divisor: String(token.decimals ?? 0),
      // Etherscan writes the standard without the dash: ERC20, ERC721, ERC1155.
      tokenType: token.type.replace('-', ''),
      totalSupply: token.total_supply ?? '0',
      blueCheckmark: 'false',
      ...Object.fromEntries(DIRECTORY_FIELDS.map((name) => [name, ''])),
      tokenPriceUSD: '0.000000000000000000'
    }])
  }
}

export const TOKEN_ACTIONS: Record<string, EtherscanAction> = { tokeninfo }
