import type { FastifyInstance } from 'fastify'
import { findToken } from '../../core/queries/tokens.ts'
import { findTokenInstance, listHolderInstances, listTokenInstances } from '../../core/queries/token-instances.ts'
import { presentInstance } from './present-token.ts'
import { toPage } from './paging.ts'
import { ADDRESS_PATTERN, addressHashParams, message, page, query, validationError, type AddressHashParams } from './schemas.ts'
import { hashBytes } from './present.ts'
import { cursorAddress, cursorIntString, cursorValue, tokenInstance } from './token-schemas.ts'

/** numeric(78,0) holds every uint256; a longer id names no instance. */
const MAX_TOKEN_ID_DIGITS = 78

const instanceParams = {
  type: 'object',
  properties: { address_hash_param: { type: 'string', pattern: ADDRESS_PATTERN }, token_id_param: { type: 'string', pattern: '^-?([1-9][0-9]*|0)$' } }
}

export async function tokenInstanceRoutes (app: FastifyInstance): Promise<void> {
  const db = app.db.knex

  app.get<{ Params: AddressHashParams, Querystring: { holder_address_hash?: string, unique_token?: string } }>('/tokens/:address_hash_param/instances', {
    schema: {
      tags: ['tokens'],
      summary: 'NFT instances of a token, highest id first (50 a page); holder_address_hash keeps one holder\'s',
      params: addressHashParams,
      querystring: query({ holder_address_hash: cursorAddress, unique_token: cursorIntString }),
      response: { 200: page(tokenInstance, { unique_token: { type: 'integer' } }), 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const address = hashBytes(request.params.address_hash_param)
    const token = await findToken(db, address)
    if (token === undefined) return await reply.code(404).send({ message: 'Not found' })
    const q = request.query
    const before = cursorValue(q.unique_token)
    const rows = q.holder_address_hash === undefined
      ? await listTokenInstances(db, address, before)
      : await listHolderInstances(db, address, hashBytes(q.holder_address_hash), before)
    // Blockscout sends the id as a number here; ids beyond 2^53 would lose digits in JSON, so they go as strings.
    return toPage(rows, (i) => presentInstance(i, token),
      (last) => ({ unique_token: Number.isSafeInteger(Number(last.token_id)) ? Number(last.token_id) : last.token_id }))
  })

  app.get<{ Params: AddressHashParams & { token_id_param: string } }>('/tokens/:address_hash_param/instances/:token_id_param', {
    schema: {
      tags: ['tokens'],
      summary: 'One NFT instance: owner, token; metadata is not fetched',
      params: instanceParams,
      querystring: query(),
      response: { 200: tokenInstance, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const address = hashBytes(request.params.address_hash_param)
    const id = request.params.token_id_param
    const token = await findToken(db, address)
    const found = token === undefined || token.type === 'ERC-20' || id.startsWith('-') || id.length > MAX_TOKEN_ID_DIGITS
      ? undefined
      : await findTokenInstance(db, address, id)
    if (token === undefined || found === undefined) return await reply.code(404).send({ message: 'Not found' })
    return presentInstance(found, token)
  })
}
