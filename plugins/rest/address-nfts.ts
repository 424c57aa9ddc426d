// An address's NFTs: each id it holds (/nft) or each collection with its
// highest ids (/nft/collections), ERC-721 before ERC-1155 and ERC-404, as
// Blockscout pages them (collection address, id, type).
import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { type HeldInstance } from '../../core/queries/addresses/address-nfts.ts'
import type { TokenRecord } from '../../core/queries/tokens/tokens.ts'
import { presentInstance, presentToken } from '../present/present-token.ts'
import { toPage } from './pages.ts'
import { TOKEN_TYPES } from '../../core/rows.ts'
import { cursorAddress, cursorIntString, cursorValue, nftCollection, parseTokenTypes, tokenInstanceInList, tokenTypeList } from './token-schemas.ts'
import { addressHashParams as params, itemsCount, page, query, validationError, type RestApp } from './schemas.ts'
import { hashBytes } from '../present/present.ts'

const cursorParams = { type: tokenTypeList, items_count: itemsCount, token_contract_address_hash: cursorAddress, token_type: { type: 'string', enum: TOKEN_TYPES } } as const

const presentHeld = (i: HeldInstance, token: TokenRecord) => ({ ...presentInstance(i, token), token_type: token.type, value: i.value })

export async function addressNftRoutes (app: RestApp): Promise<void> {
  const queries = app.queries

  app.get('/addresses/:address_hash_param/nft', {
    schema: {
      tags: ['addresses'],
      summary: 'The NFT ids the address holds: ERC-721, then ERC-1155 and ERC-404; by collection, highest id first (50 a page)',
      params,
      querystring: query({ ...cursorParams, token_id: cursorIntString }),
      response: {
        200: page(tokenInstanceInList, { token_contract_address_hash: { type: 'string' }, token_id: { type: 'string' }, token_type: { type: 'string' }, items_count: { type: 'integer' } }),
        422: validationError
      }
    }
  }, async (request) => {
    const q = request.query
    const tokenId = cursorValue(q.token_id)
    const cursor = q.token_contract_address_hash === undefined || q.token_type === undefined || tokenId === undefined
      ? undefined
      : { tokenAddress: hashBytes(q.token_contract_address_hash), tokenId, type: q.token_type }
    const rows = await queries.listAddressNfts({ holder: hashBytes(request.params.address_hash_param), types: parseTokenTypes(q.type), cursor })
    return toPage(rows, (n) => presentHeld(n.instance, n.token), (last) => ({
      token_contract_address_hash: last.token.address, token_id: last.instance.token_id, token_type: last.token.type, items_count: PAGE_SIZE
    }))
  })

  app.get('/addresses/:address_hash_param/nft/collections', {
    schema: {
      tags: ['addresses'],
      summary: 'The NFT collections the address holds ids of, each with its nine highest (50 a page)',
      params,
      querystring: query(cursorParams),
      response: {
        200: page(nftCollection, { token_contract_address_hash: { type: 'string' }, token_type: { type: 'string' }, items_count: { type: 'integer' } }),
        422: validationError
      }
    }
  }, async (request) => {
    const q = request.query
    const cursor = q.token_contract_address_hash === undefined || q.token_type === undefined
      ? undefined
      : { tokenAddress: hashBytes(q.token_contract_address_hash), type: q.token_type }
    const rows = await queries.listAddressNftCollections({ holder: hashBytes(request.params.address_hash_param), types: parseTokenTypes(q.type), cursor })
    return toPage(rows, (c) => ({ token: presentToken(c.token), amount: c.amount, token_instances: c.instances.map((i) => presentHeld(i, c.token)) }),
      (last) => ({ token_contract_address_hash: last.token.address, token_type: last.token.type, items_count: PAGE_SIZE }))
  })
}
