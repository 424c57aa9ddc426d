import { getAddress } from 'ethers'
import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { classifyQuery, type TokenSearchCursor } from '../../core/queries/search/search.ts'
import { presentContractHit, presentExactHit, presentTokenHit, searchItem } from '../present/present-search.ts'
import { ADDRESS_PATTERN, page, query, validationError, type RestApp } from './schemas.ts'
import { hashBytes, hex } from '../present/present.ts'

/** Blockscout's quick search answers nothing for shorter queries. */
const QUICK_MIN_LENGTH = 3
const MAX_QUERY_LENGTH = 256
/**
 * Verified contracts found by name go on the first page, after the exact
 * hits and before the tokens, at most this many: the tokens always keep room
 * there, and their cursor pages the rest.
 */
const MAX_CONTRACT_HITS = 20

const q = { type: 'string', maxLength: MAX_QUERY_LENGTH } as const
// Blockscout sends the search cursor as flat bracket keys, every value a string.
const TOKEN_CURSOR = {
  'token[holder_count]': { type: 'integer', minimum: 0 },
  'token[address_hash]': { type: 'string', pattern: ADDRESS_PATTERN },
  'token[name]': { type: 'string' }
} as const
const needsQ = <const Properties extends Record<string, object> = {}>(properties: Properties = {} as Properties) => ({ ...query({ q, ...properties }), required: ['q'] } as const)

export async function searchRoutes (app: RestApp): Promise<void> {
  const queries = app.queries
  /** What leads a first page: the exact hits, and the verified contracts the name finds. */
  const firstHits = async (text: string) => await Promise.all([
    queries.findExactHits(text),
    queries.searchVerifiedContracts({ text, limit: MAX_CONTRACT_HITS })
  ])

  app.get('/search', {
    schema: {
      tags: ['search'],
      summary: 'Blocks, transactions and addresses a query names, tokens by name or symbol and verified contracts by name (50 a page)',
      querystring: {
        ...needsQ({ next_page_params_type: { type: 'string', enum: ['search'] }, ...TOKEN_CURSOR }),
        dependencies: { 'token[holder_count]': ['token[address_hash]'], 'token[address_hash]': ['token[holder_count]'] }
      },
      response: {
        200: page(searchItem, { next_page_params_type: { type: 'string' }, q: { type: 'string' } }),
        422: validationError
      }
    }
  }, async (request) => {
    const text = request.query.q.trim()
    const holderCount = request.query['token[holder_count]']
    const address = request.query['token[address_hash]']
    const cursor: TokenSearchCursor | undefined = holderCount === undefined || address === undefined
      ? undefined
      : { holderCount, address: hashBytes(address) }
    if (text === '') return { items: [], next_page_params: null }
    // Exact matches and contracts lead the first page only; later pages continue the token list.
    const [exact, contracts] = cursor === undefined ? await firstHits(text) : [[], []]
    const room = PAGE_SIZE - exact.length - contracts.length
    const tokens = await queries.searchTokens({ text, cursor, limit: room })
    const shown = tokens.slice(0, room)
    const last = shown[shown.length - 1]
    return {
      items: [...exact.map(presentExactHit), ...contracts.map(presentContractHit), ...shown.map(presentTokenHit)],
      next_page_params: tokens.length > room && last !== undefined
        ? { next_page_params_type: 'search', q: text, 'token[holder_count]': String(last.holder_count), 'token[address_hash]': last.address, 'token[name]': last.name }
        : null
    }
  })

  app.get('/search/quick', {
    schema: {
      tags: ['search'],
      summary: 'The first 50 search results, unpaginated',
      querystring: needsQ(),
      response: { 200: { type: 'array', items: searchItem }, 422: validationError }
    }
  }, async (request) => {
    const text = request.query.q.trim()
    if (text.length < QUICK_MIN_LENGTH) return []
    const [exact, contracts] = await firstHits(text)
    const room = PAGE_SIZE - exact.length - contracts.length
    const tokens = await queries.searchTokens({ text, cursor: undefined, limit: room })
    return [...exact.map(presentExactHit), ...contracts.map(presentContractHit), ...tokens.slice(0, room).map(presentTokenHit)]
  })

  app.get('/search/check-redirect', {
    schema: {
      tags: ['search'],
      summary: 'Whether a query names one block, transaction or address, and which',
      querystring: needsQ(),
      response: {
        200: { type: 'object', properties: { redirect: { type: 'boolean' }, type: { type: ['string', 'null'] }, parameter: { type: ['string', 'null'] } } },
        422: validationError
      }
    }
  }, async (request) => {
    const key = classifyQuery(request.query.q.trim())
    const none = { redirect: false, type: null, parameter: null }
    if (key === undefined) return none
    // As Blockscout: any well-formed address redirects, known or not.
    if ('address' in key) return { redirect: true, type: 'address', parameter: getAddress(hex(key.address)) }
    if ('number' in key) {
      const block = await queries.findBlockHit(key)
      return block === undefined ? none : { redirect: true, type: 'block', parameter: block.hash }
    }
    const transaction = await queries.findTransactionHit(key.hash)
    if (transaction !== undefined) return { redirect: true, type: 'transaction', parameter: transaction.hash }
    const block = await queries.findBlockHit(key)
    return block === undefined ? none : { redirect: true, type: 'block', parameter: block.hash }
  })
}
