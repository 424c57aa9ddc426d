// What an address holds: token-balances (everything, unpaged) and tokens
// (paged, type filter, ERC-1155 holdings with their instance).
import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { type HoldingRecord } from '../../core/queries/addresses/address-tokens.ts'
import { presentInstance, presentToken } from '../present/present-token.ts'
import { toPage } from './pages.ts'
import { cursorFloatString, cursorIntString, cursorValue, parseTokenTypes, tokenBalance, tokenTypeList } from './token-schemas.ts'
import { addressHashParams as params, itemsCount, page, query, validationError, type RestApp } from './schemas.ts'
import { hashBytes } from '../present/present.ts'

/** ERC-20 and ERC-721 holdings are per token (id -1); ERC-1155 per id. */
const tokenIdOf = (h: HoldingRecord): string | null => h.token_id === '-1' ? null : h.token_id

export async function addressTokenRoutes (app: RestApp): Promise<void> {
  const queries = app.queries

  app.get('/addresses/:address_hash_param/token-balances', {
    schema: {
      tags: ['addresses'],
      summary: 'Every token the address holds, by value (ERC-721 counted per collection)',
      params,
      querystring: query(),
      response: { 200: { type: 'array', items: tokenBalance }, 422: validationError }
    }
  }, async (request) => {
    const rows = await queries.listTokenBalances(hashBytes(request.params.address_hash_param))
    return rows.map((h) => ({ token: presentToken(h.token), token_id: tokenIdOf(h), token_instance: null, value: h.value }))
  })

  app.get('/addresses/:address_hash_param/tokens', {
    schema: {
      tags: ['addresses'],
      summary: 'The address\'s tokens by value (50 a page), type filters',
      params,
      querystring: query({
        type: tokenTypeList,
        fiat_value: cursorFloatString,
        value: cursorIntString,
        id: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        items_count: itemsCount
      }),
      response: { 200: page(tokenBalance, { value: { type: 'string' }, id: { type: 'integer' }, items_count: { type: 'integer' } }), 422: validationError }
    }
  }, async (request) => {
    const q = request.query
    const value = cursorValue(q.value)
    const cursor = value === undefined || q.id === undefined ? undefined : { value, id: String(q.id) }
    const rows = await queries.listHoldings({ holder: hashBytes(request.params.address_hash_param), types: parseTokenTypes(q.type), cursor })
    // An ERC-1155 holding (an id held) carries its instance: the page's all read at once.
    const perId = rows.slice(0, PAGE_SIZE).filter((h) => tokenIdOf(h) !== null)
    const instances = await queries.findTokenInstances(perId.map((h) => ({ token: hashBytes(h.token.address), tokenId: h.token_id })))
    const instanceOf = new Map(perId.map((h, i) => [h, instances[i]!]))
    return toPage(rows, (h) => {
      const instance = instanceOf.get(h)
      return {
        token: presentToken(h.token),
        token_id: tokenIdOf(h),
        token_instance: instance === undefined ? null : presentInstance(instance, h.token),
        value: h.value
      }
    }, (last) => ({ fiat_value: null, value: last.value, id: Number(last.id), items_count: PAGE_SIZE }))
  })
}
