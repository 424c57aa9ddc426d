// Token transfers: the global list, a transaction's, an address's and a token's.
import type { TokenTransferRecord } from '../../core/queries/tokens/token-transfers.ts'
import { addressParam, tokenTransferList, tokenTypes } from './list-schemas.ts'
import { nextTokenTransferParams, pageSize, tokenTransferCursor } from './pages.ts'
import { presentTokenTransfer, tokenTransferAddresses } from '../present/present-transaction.ts'
import { parseTokenTypes } from './token-schemas.ts'
import { addressHashParams, itemsCount, message, query, tokenTransfer, transactionHashParams, validationError, type RestApp } from './schemas.ts'
import { hashBytes } from '../present/present.ts'
import { NotFoundError } from '../../core/errors.ts'
import type { AddressNameReader } from '../../core/address-names/index.ts'
import type { Decoder } from '../../core/decode/index.ts'
import { transferMethods } from '../present/decodings.ts'

const listResponse = tokenTransferList.response(tokenTransfer)

export async function tokenTransferRoutes (app: RestApp, { decoder, names }: { decoder: Decoder, names: AddressNameReader }): Promise<void> {
  const queries = app.queries
  const pageOf = async (rows: TokenTransferRecord[], q: object, size?: number) => {
    const [named, method] = await Promise.all([names.read(rows.flatMap(tokenTransferAddresses)), transferMethods(decoder, queries.readTransferCalls, rows)])
    return tokenTransferList.keysetPage(rows, (t) => presentTokenTransfer(t, named, method(t)), nextTokenTransferParams, q, size)
  }

  app.get('/token-transfers', {
    schema: {
      tags: ['token-transfers'],
      summary: 'Token transfers, newest first (50 a page); `type` filters by token type',
      querystring: query({ type: tokenTypes, limit: { type: ['integer', 'null'] }, ...tokenTransferList.params }),
      response: { 200: listResponse, 422: validationError }
    }
  }, async (request) => {
    const q = request.query
    const size = pageSize(q.limit)
    return await pageOf(await queries.listTokenTransfers({ types: parseTokenTypes(q.type), cursor: tokenTransferCursor(q, 'desc') }), q, size)
  })

  app.get('/transactions/:transaction_hash_param/token-transfers', {
    schema: {
      tags: ['transactions'],
      summary: 'A transaction\'s token transfers in log order; `type` filters by token type',
      params: transactionHashParams,
      querystring: query({ type: tokenTypes, ...tokenTransferList.params }),
      response: { 200: listResponse, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const hash = hashBytes(request.params.transaction_hash_param)
    if (!await queries.transactionExists(hash)) throw new NotFoundError()
    const q = request.query
    return await pageOf(await queries.listTransactionTokenTransfersPage({ hash, types: parseTokenTypes(q.type), cursor: tokenTransferCursor(q, 'asc') }), q)
  })

  app.get('/addresses/:address_hash_param/token-transfers', {
    schema: {
      tags: ['addresses'],
      summary: 'Token transfers from or to the address, newest first; filter=from|to, type, token',
      params: addressHashParams,
      querystring: query({
        filter: { type: 'string', enum: ['to', 'from'] },
        type: tokenTypes,
        token: addressParam,
        items_count: itemsCount,
        ...tokenTransferList.params
      }),
      response: { 200: listResponse, 422: validationError }
    }
  }, async (request) => {
    const q = request.query
    const options = { filter: q.filter, types: parseTokenTypes(q.type), token: q.token === undefined ? undefined : hashBytes(q.token) }
    return await pageOf(await queries.listAddressTokenTransfers({ address: hashBytes(request.params.address_hash_param), options, cursor: tokenTransferCursor(q, 'desc') }), q)
  })

  app.get('/tokens/:address_hash_param/transfers', {
    schema: {
      tags: ['tokens'],
      summary: 'The token\'s transfers, newest first',
      params: addressHashParams,
      querystring: query(tokenTransferList.params),
      response: { 200: listResponse, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const token = hashBytes(request.params.address_hash_param)
    if (!await queries.tokenExists(token)) throw new NotFoundError()
    return await pageOf(await queries.listTokenContractTransfers({ token, cursor: tokenTransferCursor(request.query, 'desc') }), request.query)
  })
}
