// Blockscout's advanced filter API: the list itself (transactions, internal
// transactions and token transfers under one set of filters; the SQL is in
// core/queries/search/advanced-filters.ts), and the method list: the methods the
// filter page offers to pick from, and the lookup of one by 4-byte selector or
// name as the user types. Blockscout resolves names it has no list entry for
// from verified contracts' ABIs; this index has no verified contracts, so an
// unknown selector comes back with an empty name, an unknown name with nothing.
// The list is the methods testnet contracts most often expose (tokens, NFTs,
// wrapped ether, ownership), their selectors worked out from the signatures.
import { id } from 'ethers'
import { ITEM_KINDS, type AdvancedFilter, type AdvancedFilterCursor, type AdvancedFilterRow, type ItemKind } from '../../core/queries/search/advanced-filters.ts'
import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { TOKEN_TYPES, type Hex, type TokenType } from '../../core/rows.ts'
import { clampBigint, clampInteger } from '../../core/queries/sql/cursor.ts'
import { advancedFilterQuery, advancedFilterResponse, type AdvancedFilterQuery } from './advanced-filter-schemas.ts'
import { presentToken } from '../present/present-token.ts'
import { total } from '../present/present-transaction.ts'
import { addressObject, checksumAddress, epochTimestamp, hashBytes } from '../present/present.ts'
import { query, validationError, type RestApp } from './schemas.ts'
import type { Queries } from '../../core/queries/index.ts'
import { NO_NAMES, type AddressNameReader, type AddressNames } from '../../core/address-names/index.ts'

const SIGNATURES = [
  'transfer(address,uint256)', 'transferFrom(address,address,uint256)', 'approve(address,uint256)', 'mint(address,uint256)',
  'burn(uint256)', 'deposit()', 'withdraw(uint256)', 'safeTransferFrom(address,address,uint256)', 'setApprovalForAll(address,bool)',
  'transferOwnership(address)', 'renounceOwnership()', 'multicall(bytes[])', 'claim()', 'stake(uint256)', 'swap(uint256,uint256,address,bytes)'
]

type Method = { method_id: string, name: string }

export const KNOWN_METHODS: readonly Method[] = SIGNATURES.map((signature) => ({ method_id: id(signature).slice(0, 10), name: signature.slice(0, signature.indexOf('(')) }))

const SELECTOR = /^0x[0-9a-f]{8}$/

/** Blockscout's answer for `q`: the known method it names, a bare selector, or nothing. */
export function findMethods (q: string): Method[] {
  const wanted = q.toLowerCase()
  const known = KNOWN_METHODS.find((m) => m.method_id === wanted || m.name.toLowerCase() === wanted)
  if (known !== undefined) return [known]
  return SELECTOR.test(wanted) ? [{ method_id: wanted, name: '' }] : []
}

const method = {
  type: 'object',
  required: ['method_id', 'name'],
  properties: { method_id: { type: 'string', pattern: '^0x[0-9a-f]{8}$' }, name: { type: 'string', description: 'Empty when the selector names no method known here' } }
} as const

export async function advancedFilterRoutes (app: RestApp, { names }: { names: AddressNameReader }): Promise<void> {
  await app.register(advancedFilterListRoute, { names })
  app.get('/advanced-filters/methods', {
    schema: {
      tags: ['advanced-filters'],
      summary: 'Contract methods to filter by: a list of common ones, or the one `q` names (4-byte selector or name)',
      querystring: query({ q: { type: 'string', maxLength: 200 } }),
      response: { 200: { type: 'array', items: method }, 422: validationError }
    }
  }, async (request) => request.query.q === undefined ? KNOWN_METHODS.slice() : findMethods(request.query.q))
}

/** Blockscout honours at most this many entries of each list. */
const MAX_LIST = 20
const NATIVE = 'native'

const entries = (list: string | undefined): string[] =>
  list === undefined ? [] : [...new Set(list.split(',').map((e) => e.trim().toLowerCase()).filter((e) => e !== ''))].slice(0, MAX_LIST)
const addresses = (list: string | undefined): Buffer[] | undefined => {
  const found = entries(list).filter((e) => e !== NATIVE).map(hashBytes)
  return found.length === 0 ? undefined : found
}

/** `transaction_types` as Blockscout reads it: any case, unknown entries dropped, none left meaning every type. */
function parseTypes (list: string | undefined): { kinds: ItemKind[], tokenTypes: TokenType[] } {
  const wanted = entries(list).map((e) => e.toUpperCase())
  const kinds = ITEM_KINDS.filter((k) => wanted.includes(k.toUpperCase()))
  const tokenTypes = TOKEN_TYPES.filter((type) => wanted.includes(type))
  return kinds.length + tokenTypes.length === 0 ? { kinds: [...ITEM_KINDS], tokenTypes: [...TOKEN_TYPES] } : { kinds, tokenTypes }
}

/** Selectors as Blockscout reads them: invalid entries dropped, at most 20. */
const parseMethods = (list: string | undefined): Buffer[] | undefined => {
  const found = entries(list).filter((e) => SELECTOR.test(e)).map(hashBytes)
  return found.length === 0 ? undefined : found
}

/** The filter a query names; `native` in the token lists stands for coin items (transactions and internal transactions). */
function toFilter (q: AdvancedFilterQuery): AdvancedFilter {
  let { kinds, tokenTypes } = parseTypes(q.transaction_types)
  const include = entries(q.token_contract_address_hashes_to_include)
  const exclude = entries(q.token_contract_address_hashes_to_exclude)
  const tokensInclude = addresses(q.token_contract_address_hashes_to_include)
  if (include.length > 0 && !include.includes(NATIVE)) kinds = []
  if (include.length > 0 && tokensInclude === undefined) tokenTypes = []
  if (exclude.includes(NATIVE)) kinds = []
  const trimmed = (v: string | undefined) => v === undefined ? undefined : v.trim()
  return {
    kinds,
    tokenTypes,
    methods: parseMethods(q.methods),
    fromInclude: addresses(q.from_address_hashes_to_include),
    fromExclude: addresses(q.from_address_hashes_to_exclude),
    toInclude: addresses(q.to_address_hashes_to_include),
    toExclude: addresses(q.to_address_hashes_to_exclude),
    relation: q.address_relation?.toLowerCase() === 'and' ? 'and' : 'or',
    amountFrom: trimmed(q.amount_from),
    amountTo: trimmed(q.amount_to),
    tokensInclude,
    tokensExclude: addresses(q.token_contract_address_hashes_to_exclude)
  }
}

const CURSOR_KEYS = ['block_number', 'transaction_index', 'internal_transaction_index', 'token_transfer_index', 'token_transfer_batch_index', 'items_count']

const subIndex = (value: string | undefined): number | null => value === undefined || value === '' || value === 'null' ? null : clampInteger(Number(value))

function toCursor (q: AdvancedFilterQuery): AdvancedFilterCursor | undefined {
  if (q.block_number === undefined) return undefined
  return {
    blockNumber: clampBigint(q.block_number),
    transactionIndex: clampInteger(q.transaction_index ?? 2 ** 31 - 1),
    internalIndex: subIndex(q.internal_transaction_index),
    transferIndex: subIndex(q.token_transfer_index),
    batchIndex: subIndex(q.token_transfer_batch_index)
  }
}

const TRANSFER_KIND = 1
const INTERNAL_KIND = 2

function presentItem (r: AdvancedFilterRow, names: AddressNames = NO_NAMES) {
  const isTransfer = r.kind === TRANSFER_KIND
  const token = isTransfer
    ? { address: r.token_address! as Hex, type: r.token_type!, name: r.name, symbol: r.symbol, decimals: r.decimals, total_supply: r.total_supply, holder_count: r.holder_count ?? 0 }
    : undefined
  return {
    hash: r.hash,
    type: isTransfer ? r.token_type : r.item_type,
    // As Blockscout's result: success, or the error, Geth's plain revert as "Reverted".
    status: r.status === 1 ? 'success' : r.error === null || r.error === 'execution reverted' ? 'Reverted' : r.error,
    method: r.method_id,
    from: addressObject(r.from, r.from_is_contract, names),
    to: r.to === null ? null : addressObject(r.to, r.to_is_contract, names),
    created_contract: r.created_contract === null ? null : addressObject(r.created_contract, true, names),
    value: isTransfer ? null : r.value,
    total: isTransfer ? total({ token_type: r.token_type!, amount: r.amount!, token_id: r.token_id, decimals: r.decimals }) : null,
    token: token === undefined ? null : presentToken(token),
    timestamp: epochTimestamp(r.timestamp),
    block_number: Number(r.block_number),
    transaction_index: r.transaction_index,
    internal_transaction_index: r.kind === INTERNAL_KIND ? r.sub_index : null,
    token_transfer_index: isTransfer ? r.sub_index : null,
    token_transfer_batch_index: isTransfer && r.in_batch ? r.batch_index : null,
    fee: r.fee
  }
}

/** The cursor past an item: a transfer outside a batch is batch item 0. */
function itemCursor (item: ReturnType<typeof presentItem>): AdvancedFilterCursor {
  return {
    blockNumber: item.block_number,
    transactionIndex: item.transaction_index,
    internalIndex: item.internal_transaction_index,
    transferIndex: item.token_transfer_index,
    batchIndex: item.token_transfer_index === null ? null : item.token_transfer_batch_index ?? 0
  }
}

function nextPageParams (last: ReturnType<typeof presentItem>, itemsCount: number) {
  const c = itemCursor(last)
  return {
    block_number: c.blockNumber,
    transaction_index: c.transactionIndex,
    internal_transaction_index: c.internalIndex,
    token_transfer_index: c.transferIndex,
    token_transfer_batch_index: c.batchIndex,
    items_count: itemsCount + PAGE_SIZE
  }
}

/** search_params: the names of the methods and the tokens the filters name. */
async function searchParams (app: RestApp, q: AdvancedFilterQuery) {
  const methods = Object.fromEntries(entries(q.methods).filter((m) => SELECTOR.test(m))
    .flatMap((m) => KNOWN_METHODS.filter((k) => k.method_id === m).map((k) => [k.method_id, k.name])))
  const named = [...new Set([...entries(q.token_contract_address_hashes_to_include), ...entries(q.token_contract_address_hashes_to_exclude)])]
    .filter((e) => e !== NATIVE).slice(0, MAX_LIST).map(hashBytes)
  const tokens = Object.fromEntries((await app.queries.findFilterTokens(named)).map((k) => [checksumAddress(k.address), presentToken(k)]))
  return { methods, tokens }
}

/** 0001-01-01T00:00:00Z in epoch milliseconds: PostgreSQL's first year. */
const YEAR_1_MS = -62_135_596_800_000

/** A Blockscout 422 for a value the schema's pattern let through but that names nothing (a 13th month). */
const invalidDate = (field: string) => ({ errors: [{ title: 'Invalid value', source: { pointer: `/${field}` }, detail: 'Invalid date-time' }] })

/** The filter a request names, its age bounds resolved to blocks; 'empty' when they hold no block; a 422 body for an impossible date. */
async function requestFilter (app: RestApp, q: AdvancedFilterQuery): Promise<AdvancedFilter | 'empty' | ReturnType<typeof invalidDate>> {
  const filter = toFilter(q)
  const [fromMs, toMs] = [q.age_from, q.age_to].map((v) => v === undefined ? undefined : Date.parse(v))
  for (const [field, ms] of [['age_from', fromMs], ['age_to', toMs]] as const) {
    // PostgreSQL's timestamps start at year 1: a year 0 would be its error, not the client's.
    if (ms !== undefined && !(ms >= YEAR_1_MS)) return invalidDate(field)
  }
  if (fromMs === undefined && toMs === undefined) return filter
  const blocks = await app.queries.resolveAge({ fromMs, toMs })
  return blocks === undefined ? 'empty' : { ...filter, blocks }
}

/** Blockscout's own limit on a CSV export. */
const CSV_MAX_ITEMS = 10_000
const CSV_COLUMNS = ['TxHash', 'Type', 'MethodId', 'UtcTimestamp', 'FromAddress', 'ToAddress', 'CreatedContractAddress', 'Value',
  'TokenContractAddressHash', 'TokenDecimals', 'TokenSymbol', 'TokenId', 'Amount', 'BlockNumber', 'Fee', 'Status']

/** A CSV field: quoted when it holds a separator, a quote or a line break (token symbols are anyone's text). */
const csvField = (value: string | number | null | undefined): string => {
  const text = value === null || value === undefined ? '' : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

function csvRow (item: ReturnType<typeof presentItem>): string {
  const total = item.total as { value?: string | null, token_id?: string | null } | null
  return [item.hash, item.type, item.method, item.timestamp, item.from.hash, item.to?.hash, item.created_contract?.hash, item.value,
    item.token?.address_hash, item.token?.decimals, item.token?.symbol, total?.token_id, total === null ? null : total.value ?? '1',
    item.block_number, item.fee, item.status].map(csvField).join(',')
}

/** The filter's items as CSV rows, page after page (each read from the indexes as the list's are), at most CSV_MAX_ITEMS. */
async function readCsvRows (queries: Queries, filter: AdvancedFilter): Promise<string[]> {
  const lines: string[] = []
  let cursor: AdvancedFilterCursor | undefined
  for (let more = true; more;) {
    const rows = await queries.listAdvancedFilterItems({ filter, cursor })
    // The CSV shows addresses only: no names to read.
    const items = rows.slice(0, PAGE_SIZE).map((r) => presentItem(r))
    lines.push(...items.slice(0, CSV_MAX_ITEMS - lines.length).map(csvRow))
    more = rows.length > PAGE_SIZE && lines.length < CSV_MAX_ITEMS
    // Nothing matched (an empty index, a filter nothing fits): no page after it.
    const last = items.at(-1)
    if (last !== undefined) cursor = itemCursor(last)
  }
  return lines
}

const csvQuery = { ...advancedFilterQuery, properties: Object.fromEntries(Object.entries(advancedFilterQuery.properties).filter(([k]) => !CURSOR_KEYS.includes(k))) }

export async function advancedFilterListRoute (app: RestApp, { names }: { names: AddressNameReader }): Promise<void> {
  const queries = app.queries
  app.get('/advanced-filters', {
    schema: {
      tags: ['advanced-filters'],
      summary: 'Transactions, internal transactions and token transfers under one set of filters, newest first (50 a page)',
      querystring: advancedFilterQuery,
      response: { 200: advancedFilterResponse, 422: validationError }
    }
  }, async (request, reply) => {
    const q = request.query
    const filter = await requestFilter(app, q)
    if (typeof filter === 'object' && 'errors' in filter) return await reply.code(422).send(filter)
    const search = await searchParams(app, q)
    if (filter === 'empty') return { items: [], next_page_params: null, search_params: search }
    const rows = await queries.listAdvancedFilterItems({ filter, cursor: toCursor(q) })
    const shown = rows.slice(0, PAGE_SIZE)
    const named = await names.read(shown.flatMap((r) => [r.from, r.to, r.created_contract]))
    const items = shown.map((r) => presentItem(r, named))
    const next = rows.length > PAGE_SIZE ? nextPageParams(items[items.length - 1]!, q.items_count ?? 0) : null
    return { items, next_page_params: next, search_params: search }
  })

  app.get('/advanced-filters/csv', {
    schema: {
      tags: ['advanced-filters'],
      summary: `The same items as CSV, newest first, at most ${CSV_MAX_ITEMS}`,
      querystring: csvQuery,
      response: { 200: { type: 'string', description: 'text/csv' }, 422: validationError }
    }
  }, async (request, reply) => {
    const filter = await requestFilter(app, request.query)
    if (typeof filter === 'object' && 'errors' in filter) return await reply.code(422).send(filter)
    const lines = [CSV_COLUMNS.join(','), ...filter === 'empty' ? [] : await readCsvRows(queries, filter)]
    return await reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="advanced-filter.csv"')
      .send(lines.join('\r\n') + '\r\n')
  })
}
