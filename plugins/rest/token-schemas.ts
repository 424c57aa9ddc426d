// Schemas of the token, holding, instance and cursor shapes shared by the
// address, token and smart-contract routes (Blockscout 11.2.7's Token,
// TokenBalance, TokenInstance and TokenHolderResponse).
import { TOKEN_TYPES, type TokenType } from '../../core/rows.ts'
import { ADDRESS_PATTERN, addressObject } from './schemas.ts'

const nullable = (type: string) => ({ type: [type, 'null'] })
const intString = { type: 'string', pattern: '^-?[0-9]+$' } as const
const intStringNullable = { type: ['string', 'null'], pattern: '^-?[0-9]+$' } as const

export const token = {
  type: 'object',
  required: ['address_hash', 'symbol', 'name', 'decimals', 'type', 'holders_count', 'exchange_rate', 'volume_24h', 'total_supply',
    'icon_url', 'circulating_market_cap', 'circulating_supply', 'reputation'],
  properties: {
    address_hash: { type: 'string' },
    name: nullable('string'),
    symbol: nullable('string'),
    decimals: intStringNullable,
    type: nullable('string'),
    holders_count: intStringNullable,
    exchange_rate: nullable('string'),
    volume_24h: nullable('string'),
    circulating_market_cap: nullable('string'),
    circulating_supply: nullable('string'),
    total_supply: intStringNullable,
    icon_url: nullable('string'),
    reputation: nullable('string')
  }
} as const

const addressOrNull = { ...addressObject, type: ['object', 'null'] } as const

export const tokenInstance = {
  type: 'object',
  required: ['id', 'metadata', 'owner', 'token', 'external_app_url', 'animation_url', 'image_url', 'is_unique', 'thumbnails',
    'media_type', 'media_url'],
  properties: {
    id: intString,
    metadata: { type: ['object', 'null'], additionalProperties: true },
    owner: addressOrNull,
    token: { ...token, type: ['object', 'null'] },
    external_app_url: nullable('string'),
    animation_url: nullable('string'),
    image_url: nullable('string'),
    is_unique: nullable('boolean'),
    thumbnails: { type: ['object', 'null'], additionalProperties: true },
    media_type: nullable('string'),
    media_url: nullable('string')
  }
} as const

/** An instance in an address's NFT list: whose type it is and how many units the address holds. */
export const tokenInstanceInList = {
  ...tokenInstance,
  required: [...tokenInstance.required, 'token_type', 'value'],
  properties: { ...tokenInstance.properties, token_type: { type: 'string', enum: TOKEN_TYPES }, value: intStringNullable }
} as const

export const nftCollection = {
  type: 'object',
  required: ['token', 'amount', 'token_instances'],
  properties: { token, amount: intStringNullable, token_instances: { type: 'array', items: tokenInstanceInList } }
} as const

export const tokenBalance = {
  type: 'object',
  required: ['token', 'token_id', 'token_instance', 'value'],
  properties: {
    token: { ...token, type: ['object', 'null'] },
    token_id: intStringNullable,
    token_instance: { ...tokenInstance, type: ['object', 'null'] },
    value: intString
  }
} as const

export const tokenHolder = {
  type: 'object',
  required: ['address', 'value', 'token_id'],
  properties: { address: addressObject, value: intStringNullable, token_id: intStringNullable }
} as const

/** Cursor values Blockscout accepts as an integer string, or empty or "null" for none. */
export const cursorIntString = { type: 'string', pattern: '^(-?([1-9][0-9]{0,77}|0)|null)?$' } as const
/** Cursor values Blockscout accepts as a decimal string, or empty or "null" for none. */
export const cursorFloatString = { type: 'string', pattern: '^(([1-9][0-9]*|0)(\\.[0-9]+)?|null)?$' } as const
/** Integer cursors: JavaScript integers are exact up to 2^53, more than any block number or row id here. */
export const cursorInteger = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const
export const cursorAddress = { type: 'string', pattern: ADDRESS_PATTERN } as const
/** `ERC-20,ERC-721`, optionally in brackets, or empty for every type. */
export const tokenTypeList = { type: 'string', pattern: `^(\\[?(${TOKEN_TYPES.join('|')})(,(${TOKEN_TYPES.join('|')}))*\\]?)?$` } as const

/** The types of a `type=` list, undefined for all. */
/** `ERC-20,erc-721`, `[ERC-1155]` or empty (no filter), as Blockscout reads the type list. */
export function parseTokenTypes (value: string | undefined): TokenType[] | undefined {
  if (value === undefined) return undefined
  const types = value.replace(/^\[|\]$/g, '').split(',').filter((t) => t !== '').map((t) => t.toUpperCase() as TokenType)
  return types.length === 0 ? undefined : [...new Set(types)]
}

/** An integer-string cursor value, undefined when empty or "null". */
export const cursorValue = (value: string | undefined): string | undefined => value === undefined || value === '' || value === 'null' ? undefined : value
