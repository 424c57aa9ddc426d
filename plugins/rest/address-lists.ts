// Address lists and counts beside the address detail: top accounts, blocks
// validated, coin balance history (per block and per day) and tab counters.
import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { COIN_BALANCE_HISTORY_DAYS } from '../../core/queries/addresses/coin-balances.ts'
import { addressObject, blockMiner, presentBlock, hashBytes } from '../present/present.ts'
import { presentCoinBalance } from '../present/coin-balance.ts'
import { cursorAddress, cursorInteger, cursorIntString, cursorValue } from './token-schemas.ts'
import { listCursor, toPage } from './pages.ts'
import type { AddressNameReader } from '../../core/address-names/index.ts'
import { addressHashParams as params, addressObject as addressSchema, block, intString, itemsCount, nullable, page, query, validationError, type RestApp } from './schemas.ts'

const topAddress = {
  type: 'object',
  properties: { ...addressSchema.properties, coin_balance: nullable('string'), transactions_count: { type: 'string' } }
} as const
const coinBalance = {
  type: 'object',
  properties: { transaction_hash: nullable('string'), block_number: { type: 'integer' }, delta: intString, value: intString, block_timestamp: { type: 'string' } }
} as const
const integerOrNull = { anyOf: [{ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, { type: 'string', pattern: '^(null)?$' }] } as const

/** Blocks sealed and balance changes, newest first, resume below a block. */
const blockNumberList = listCursor({ block_number: cursorInteger, items_count: itemsCount })

/** Every tab counter Blockscout knows, the beacon-chain and Celo ones included. */
const ALL_TAB_COUNTERS = ['validations_count', 'transactions_count', 'token_transfers_count', 'token_balances_count', 'logs_count',
  'withdrawals_count', 'internal_transactions_count', 'beacon_deposits_count', 'celo_election_rewards_count']

export async function addressListRoutes (app: RestApp, { names }: { names: AddressNameReader }): Promise<void> {
  const queries = app.queries

  app.get('/addresses', {
    schema: {
      tags: ['addresses'],
      summary: 'Top accounts: addresses holding coin by balance, or by transaction count (50 a page)',
      querystring: query({
        sort: { type: 'string', enum: ['balance', 'transactions_count'] },
        order: { type: 'string', enum: ['asc', 'desc'] },
        fetched_coin_balance: cursorIntString,
        hash: cursorAddress,
        transactions_count: integerOrNull,
        items_count: itemsCount
      }),
      response: {
        200: {
          type: 'object',
          properties: { ...page(topAddress, {}).properties, exchange_rate: nullable('string'), total_supply: nullable('string') }
        },
        422: validationError
      }
    }
  }, async (request) => {
    const q = request.query
    // Blockscout applies a sort only when both sort and order are given.
    const sorted = q.sort !== undefined && q.order !== undefined
    const balance = cursorValue(q.fetched_coin_balance)
    const cursor = q.hash === undefined || balance === undefined
      ? undefined
      : { coinBalance: balance, hash: hashBytes(q.hash), transactionCount: String(typeof q.transactions_count === 'number' ? q.transactions_count : 0) }
    const rows = await queries.listTopAddresses({ sort: sorted ? q.sort : undefined, descending: q.order !== 'asc', cursor })
    const named = await names.read(rows.map((a) => a.hash))
    return {
      ...toPage(rows,
        (a) => ({ ...addressObject(a.hash, a.is_contract, named), coin_balance: a.coin_balance, transactions_count: a.transaction_count }),
        (last) => ({
          fetched_coin_balance: last.coin_balance,
          hash: last.hash,
          transactions_count: Number(last.transaction_count),
          items_count: PAGE_SIZE,
          ...(q.sort === undefined ? {} : { sort: q.sort }),
          ...(q.order === undefined ? {} : { order: q.order })
        })),
      // No market on a test network: Blockscout then reports no rate and a zero supply.
      exchange_rate: null,
      total_supply: '0'
    }
  })

  app.get('/addresses/:address_hash_param/blocks-validated', {
    schema: {
      tags: ['addresses'],
      summary: 'Blocks the address sealed, newest first (50 a page)',
      params,
      querystring: query(blockNumberList.params),
      response: { 200: blockNumberList.response(block), 422: validationError }
    }
  }, async (request) => {
    const rows = await queries.listBlocksBySigner({ signer: hashBytes(request.params.address_hash_param), before: request.query.block_number })
    const named = await names.read(rows.map(blockMiner))
    return blockNumberList.page(rows, (b) => presentBlock(b, 'list', named), (last) => ({ block_number: last.number, items_count: PAGE_SIZE }))
  })

  app.get('/addresses/:address_hash_param/coin-balance-history', {
    schema: {
      tags: ['addresses'],
      summary: 'Balance after each block that changed it, with the change, newest first (50 a page)',
      params,
      querystring: query(blockNumberList.params),
      response: { 200: blockNumberList.response(coinBalance), 422: validationError }
    }
  }, async (request) => {
    const rows = await queries.listCoinBalanceHistory({ address: hashBytes(request.params.address_hash_param), before: request.query.block_number })
    return blockNumberList.page(rows, presentCoinBalance, (last) => ({ block_number: last.block_number, items_count: PAGE_SIZE }))
  })

  app.get('/addresses/:address_hash_param/coin-balance-history-by-day', {
    schema: {
      tags: ['addresses'],
      summary: `Highest balance of each day over the last ${COIN_BALANCE_HISTORY_DAYS} days`,
      params,
      querystring: query(),
      response: {
        200: { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { date: { type: 'string' }, value: intString } } }, days: { type: 'integer' } } },
        422: validationError
      }
    }
  }, async (request) => ({ items: await queries.listDailyBalances({ address: hashBytes(request.params.address_hash_param) }), days: COIN_BALANCE_HISTORY_DAYS }))

  app.get('/addresses/:address_hash_param/tabs-counters', {
    schema: {
      tags: ['addresses'],
      summary: 'Item counts of the address tabs, each capped at 51 ("50+")',
      params,
      querystring: query(),
      response: {
        200: {
          type: 'object',
          properties: Object.fromEntries(ALL_TAB_COUNTERS.map((k) => [k, { type: 'integer' }]))
        },
        422: validationError
      }
    }
  }, async (request) => {
    const hash = hashBytes(request.params.address_hash_param)
    // Blockscout answers an address it never saw with every counter it knows, chain-specific ones too, at 0.
    if (!await queries.isKnownAddress(hash)) return Object.fromEntries(ALL_TAB_COUNTERS.map((k) => [k, 0]))
    return await queries.countAddressTabs(hash)
  })
}
