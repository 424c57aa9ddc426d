import type { NftMetadataReader } from '../../core/nft-metadata/index.ts'
import { type TokenRecord } from '../../core/queries/tokens/tokens.ts'
import { presentInstance } from '../present/present-token.ts'
import { presentTokenTransfer, tokenTransferAddresses } from '../present/present-transaction.ts'
import { tokenTransferList } from './list-schemas.ts'
import { listCursor, nextTokenTransferParams, tokenTransferCursor } from './pages.ts'
import { ADDRESS_PATTERN, addressHashParams, itemsCount, message, query, tokenTransfer, validationError, type RestApp } from './schemas.ts'
import { addressObject, hashBytes } from '../present/present.ts'
import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { cursorAddress, cursorIntString, cursorValue, tokenHolder, tokenInstance } from './token-schemas.ts'
import { NotFoundError } from '../../core/errors.ts'
import type { Queries } from '../../core/queries/index.ts'
import type { AddressNameReader } from '../../core/address-names/index.ts'
import type { Decoder } from '../../core/decode/index.ts'
import { transferMethods } from '../present/decodings.ts'

/** numeric(78,0) holds every uint256; a longer id names no instance. */
const MAX_TOKEN_ID_DIGITS = 78

const instanceParams = {
  type: 'object',
  required: ['address_hash_param', 'token_id_param'],
  properties: { address_hash_param: { type: 'string', pattern: ADDRESS_PATTERN }, token_id_param: { type: 'string', pattern: '^-?([1-9][0-9]*|0)$' } }
} as const

/** An id no instance can have (negative, or past uint256) is asked of nothing: it names no rows. */
const storableId = (id: string): boolean => !id.startsWith('-') && id.length <= MAX_TOKEN_ID_DIGITS

/** The NFT token of the path, or undefined (404) for an unknown address or an ERC-20 token. */
async function findNftToken (queries: Queries, params: { address_hash_param: string, token_id_param: string }): Promise<TokenRecord | undefined> {
  const token = await queries.findToken(hashBytes(params.address_hash_param))
  return token === undefined || token.type === 'ERC-20' ? undefined : token
}

/** Blockscout sends the id as a number here; ids beyond 2^53 would lose digits in JSON, so they go as strings. */
const instanceList = listCursor({ unique_token: cursorIntString }, { unique_token: { type: 'integer' } })
const instanceTransferList = listCursor({ ...tokenTransferList.params, token_id: cursorIntString })
const instanceHolderList = listCursor({ address_hash: cursorAddress, value: cursorIntString, token_id: cursorIntString, items_count: itemsCount })

export async function tokenInstanceRoutes (app: RestApp, { decoder, nftMetadata, names }: { decoder: Decoder, nftMetadata: NftMetadataReader, names: AddressNameReader }): Promise<void> {
  const queries = app.queries

  app.get('/tokens/:address_hash_param/instances', {
    schema: {
      tags: ['tokens'],
      summary: 'NFT instances of a token, highest id first (50 a page); holder_address_hash keeps one holder\'s',
      params: addressHashParams,
      querystring: query({ holder_address_hash: cursorAddress, ...instanceList.params }),
      response: { 200: instanceList.response(tokenInstance), 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const address = hashBytes(request.params.address_hash_param)
    const token = await queries.findToken(address)
    if (token === undefined) throw new NotFoundError()
    const q = request.query
    const before = cursorValue(q.unique_token)
    const rows = q.holder_address_hash === undefined
      ? await queries.listTokenInstances({ token: address, before })
      : await queries.listHolderInstances({ token: address, holder: hashBytes(q.holder_address_hash), before })
    const named = await names.read(rows.map((i) => i.owner))
    return instanceList.page(rows, (i) => presentInstance(i, token, named),
      (last) => ({ unique_token: Number.isSafeInteger(Number(last.token_id)) ? Number(last.token_id) : last.token_id }))
  })

  app.get('/tokens/:address_hash_param/instances/:token_id_param', {
    schema: {
      tags: ['tokens'],
      summary: 'One NFT instance: owner, token and metadata (read through tokenURI / uri the first time it is asked for)',
      params: instanceParams,
      querystring: query(),
      response: { 200: tokenInstance, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const id = request.params.token_id_param
    const token = await findNftToken(queries, request.params)
    const found = token === undefined || !storableId(id) ? undefined : await queries.findTokenInstance({ token: hashBytes(token.address), tokenId: id })
    if (token === undefined || found === undefined) throw new NotFoundError()
    // Metadata once read is kept for good: only an instance without it asks the reader (which may read it now).
    const metadata = found.metadata ?? (token.type === 'ERC-721' || token.type === 'ERC-1155' ? await nftMetadata.read(hashBytes(token.address), id, token.type) : null)
    return presentInstance({ ...found, metadata }, token, await names.read([found.owner]))
  })

  app.get('/tokens/:address_hash_param/instances/:token_id_param/transfers', {
    schema: {
      tags: ['tokens'],
      summary: 'Transfers that moved one NFT id, newest first (50 a page)',
      params: instanceParams,
      querystring: query(instanceTransferList.params),
      response: { 200: instanceTransferList.response(tokenTransfer), 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const { token_id_param: id } = request.params
    const token = await findNftToken(queries, request.params)
    if (token === undefined) throw new NotFoundError()
    const rows = storableId(id) ? await queries.listInstanceTransfers({ token: hashBytes(token.address), tokenId: id, cursor: tokenTransferCursor(request.query, 'desc') }) : []
    const [named, method] = await Promise.all([names.read(rows.flatMap(tokenTransferAddresses)), transferMethods(decoder, queries.readTransferCalls, rows)])
    return instanceTransferList.keysetPage(rows, (t) => presentTokenTransfer(t, named, method(t)), (last, next) => ({ ...nextTokenTransferParams(last, next), token_id: id }), request.query)
  })

  app.get('/tokens/:address_hash_param/instances/:token_id_param/holders', {
    schema: {
      tags: ['tokens'],
      summary: 'Holders of one NFT id, most units first (50 a page)',
      params: instanceParams,
      querystring: query(instanceHolderList.params),
      response: { 200: instanceHolderList.response(tokenHolder), 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const { token_id_param: id } = request.params
    const token = await findNftToken(queries, request.params)
    if (token === undefined) throw new NotFoundError()
    const q = request.query
    const value = cursorValue(q.value)
    const cursor = q.address_hash === undefined || value === undefined ? undefined : { value, holder: hashBytes(q.address_hash) }
    const rows = storableId(id) ? await queries.listInstanceHolders({ token: hashBytes(token.address), tokenId: id, cursor }) : []
    const named = await names.read(rows.map((h) => h.holder))
    return instanceHolderList.page(rows, (h) => ({ address: addressObject(h.holder, h.holder_is_contract, named), value: h.value, token_id: h.token_id }),
      (last) => ({ address_hash: last.holder, value: last.value, token_id: last.token_id, items_count: PAGE_SIZE }))
  })

  app.get('/tokens/:address_hash_param/instances/:token_id_param/transfers-count', {
    schema: {
      tags: ['tokens'],
      summary: 'How many transfers moved one NFT id',
      params: instanceParams,
      querystring: query(),
      response: { 200: { type: 'object', required: ['transfers_count'], properties: { transfers_count: { type: 'integer' } } }, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const { token_id_param: id } = request.params
    const token = await findNftToken(queries, request.params)
    if (token === undefined) throw new NotFoundError()
    return { transfers_count: storableId(id) ? await queries.countInstanceTransfers({ token: hashBytes(token.address), tokenId: id }) : 0 }
  })
}
