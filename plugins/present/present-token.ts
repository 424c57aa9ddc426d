// Blockscout's token, token balance and NFT instance objects from stored rows.
import type { TokenRecord } from '../../core/queries/tokens/tokens.ts'
import type { InstanceRecord } from '../../core/queries/tokens/token-instances.ts'
import { addressObject, checksumAddress } from './present.ts'
import { NO_NAMES, type AddressNames } from '../../core/address-names/index.ts'
import { ZERO_ADDRESS } from '../../core/rows.ts'

export function presentToken (t: TokenRecord) {
  return {
    address_hash: checksumAddress(t.address),
    name: t.name,
    symbol: t.symbol,
    decimals: t.decimals === null ? null : String(t.decimals),
    type: t.type,
    holders_count: String(Math.max(0, t.holder_count)),
    // No market data on a test network.
    exchange_rate: null,
    volume_24h: null,
    circulating_market_cap: null,
    circulating_supply: null,
    total_supply: t.total_supply,
    icon_url: null,
    reputation: 'ok'
  }
}

/** A string member of the metadata document, or null. */
const member = (metadata: Record<string, unknown> | null, ...names: string[]): string | null => {
  for (const name of names) {
    const value = metadata?.[name]
    if (typeof value === 'string' && value !== '') return value
  }
  return null
}

/**
 * An instance as Blockscout shows it. The owner: an ERC-721 id's holder (the
 * zero address once burnt, as Blockscout records a burn); an ERC-1155 id's
 * only holder when it is unique (one unit). The media links are the metadata
 * document's own (null until it has been read, core/nft-metadata/).
 */
export function presentInstance (i: InstanceRecord, t: TokenRecord, names: AddressNames = NO_NAMES) {
  const isUnique = t.type === 'ERC-721' || i.supply === '1'
  const owner = !isUnique ? null : i.owner ?? (t.type === 'ERC-721' ? ZERO_ADDRESS : null)
  return {
    id: i.token_id,
    metadata: i.metadata,
    owner: owner === null ? null : addressObject(owner, i.owner_is_contract, names),
    token: presentToken(t),
    external_app_url: member(i.metadata, 'external_url'),
    animation_url: member(i.metadata, 'animation_url'),
    image_url: member(i.metadata, 'image', 'image_url'),
    is_unique: isUnique,
    thumbnails: null,
    media_type: null,
    media_url: member(i.metadata, 'image', 'image_url', 'animation_url')
  }
}
