import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { type TokenListCursor } from '../../core/queries/tokens/tokens.ts'
import { presentToken } from '../present/present-token.ts'
import { toPage } from './pages.ts'
import { addressObject, hashBytes } from '../present/present.ts'
import { addressHashParams, itemsCount, message, page, query, validationError, type RestApp } from './schemas.ts'
import {
  cursorAddress, cursorFloatString, cursorIntString, cursorValue, parseTokenTypes, token, tokenHolder, tokenTypeList
} from './token-schemas.ts'
import { NotFoundError } from '../../core/errors.ts'
import type { AddressNameReader } from '../../core/address-names/index.ts'

type ListQuery = {
  q?: string,
  type?: string,
  limit?: number,
  sort?: string,
  order?: string,
  contract_address_hash?: string,
  holders_count?: string,
  is_name_null?: boolean,
  name?: string
}

const intString = { type: 'string', pattern: '^[0-9]+$' } as const
const MAX_HOLDER_COUNT = 2 ** 31 - 1

function listCursor (q: ListQuery): TokenListCursor | undefined {
  const holders = cursorValue(q.holders_count)
  if (q.contract_address_hash === undefined || holders === undefined) return undefined
  // holder_count is an integer column: a larger cursor means "from the top", not an out-of-range error.
  const holderCount = Math.min(Number(holders), MAX_HOLDER_COUNT)
  return { holderCount, isNameNull: q.is_name_null ?? false, name: q.name ?? null, address: hashBytes(q.contract_address_hash) }
}

/** What Blockscout echoes into next_page_params: the filters sent, except `type`. */
function echoed (q: ListQuery) {
  return Object.fromEntries(Object.entries({ q: q.q, sort: q.sort, order: q.order, limit: q.limit }).filter(([, v]) => v !== undefined))
}

export async function tokenRoutes (app: RestApp, { names }: { names: AddressNameReader }): Promise<void> {
  const queries = app.queries

  // Blockscout's OpenAPI names the list `/v2/tokens/`; the router's ignoreTrailingSlash (plugins/index.ts) serves both.
  app.get('/tokens', {
    schema: {
      tags: ['tokens'],
      summary: 'Tokens by holder count, then name (50 a page); q searches names and symbols, type filters',
      querystring: query({
        q: { type: 'string' },
        type: tokenTypeList,
        limit: { type: 'integer', minimum: -PAGE_SIZE * 1000, maximum: PAGE_SIZE * 1000 },
        sort: { type: 'string', enum: ['fiat_value', 'holders_count', 'circulating_market_cap'] },
        order: { type: 'string', enum: ['asc', 'desc'] },
        contract_address_hash: cursorAddress,
        fiat_value: cursorFloatString,
        holders_count: cursorIntString,
        is_name_null: { type: 'boolean' },
        market_cap: cursorFloatString,
        name: { type: 'string' },
        items_count: itemsCount
      }),
      response: { 200: page(token, { holders_count: { type: 'integer' }, contract_address_hash: { type: 'string' }, items_count: { type: 'integer' } }), 422: validationError }
    }
  }, async (request) => {
    const q = request.query
    // `limit` only shrinks a page, as in Blockscout.
    const pageSize = q.limit === undefined ? PAGE_SIZE : Math.min(PAGE_SIZE, Math.abs(q.limit))
    if (pageSize === 0) return { items: [], next_page_params: null }
    // Market data is null for every token, so fiat and market-cap orders leave the holder order.
    const ascending = q.sort === 'holders_count' && q.order === 'asc'
    const rows = await queries.listTokens({ filter: { types: parseTokenTypes(q.type), q: q.q }, holdersAscending: ascending, cursor: listCursor(q), pageSize })
    return toPage(rows, presentToken, (last) => ({
      contract_address_hash: last.address,
      fiat_value: null,
      holders_count: last.holder_count,
      is_name_null: last.name === null,
      market_cap: null,
      name: last.name,
      items_count: pageSize,
      ...echoed(q)
    }), pageSize)
  })

  app.get('/tokens/:address_hash_param', {
    schema: { tags: ['tokens'], summary: 'A token', params: addressHashParams, querystring: query(), response: { 200: token, 404: message, 422: validationError } }
  }, async (request, reply) => {
    const found = await queries.findToken(hashBytes(request.params.address_hash_param))
    if (found === undefined) throw new NotFoundError()
    return presentToken(found)
  })

  app.get('/tokens/:address_hash_param/counters', {
    schema: {
      tags: ['tokens'],
      summary: 'Holders and transfers of a token',
      params: addressHashParams,
      querystring: query(),
      response: { 200: { type: 'object', properties: { token_holders_count: intString, transfers_count: intString } }, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const address = hashBytes(request.params.address_hash_param)
    const found = await queries.findToken(address)
    if (found === undefined) throw new NotFoundError()
    return { token_holders_count: String(Math.max(0, found.holder_count)), transfers_count: await queries.countTokenTransfers(address) }
  })

  app.get('/tokens/:address_hash_param/holders', {
    schema: {
      tags: ['tokens'],
      summary: 'Holders of a token by value (50 a page); ERC-1155 per id',
      params: addressHashParams,
      querystring: query({ address_hash: cursorAddress, value: cursorIntString, token_id: cursorIntString, items_count: itemsCount }),
      response: { 200: page(tokenHolder, { address_hash: { type: 'string' }, value: { type: 'string' }, items_count: { type: 'integer' } }), 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const address = hashBytes(request.params.address_hash_param)
    const found = await queries.findToken(address)
    if (found === undefined) throw new NotFoundError()
    const q = request.query
    const value = cursorValue(q.value)
    const cursor = q.address_hash === undefined || value === undefined
      ? undefined
      : { value, holder: hashBytes(q.address_hash), tokenId: cursorValue(q.token_id) ?? '-1' }
    const rows = await queries.listTokenHolders({ token: address, cursor })
    const named = await names.read(rows.map((h) => h.holder))
    const perId = found.type === 'ERC-1155'
    return toPage(rows,
      (h) => ({ address: addressObject(h.holder, h.holder_is_contract, named), value: h.value, token_id: perId ? h.token_id : null }),
      // An ERC-1155 holder has a row per id: the id keeps the cursor exact.
      (last) => ({ address_hash: last.holder, value: last.value, items_count: PAGE_SIZE, ...(perId ? { token_id: last.token_id } : {}) }))
  })
}
