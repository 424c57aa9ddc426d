import { getAddress } from 'ethers'
import { PAGE_SIZE } from '../../core/queries/sql/page-size.ts'
import { type AddressRecord, type AddressTransactionFilter } from '../../core/queries/addresses/addresses.ts'
import type { TransactionJsonRow } from '../../core/queries/transactions/rest-transaction-json.ts'
import { transactionAddresses, transactionJson, transactionMembers } from '../present/present-transaction.ts'
import { JSON_TEXT, addressObject, hashBytes, jsonPage } from '../present/present.ts'
import { presentToken } from '../present/present-token.ts'
import { addressHashParams, addressObject as addressSchema, itemsCount, query, transaction, validationError, type RestApp } from './schemas.ts'
import { blockIndexCursor, listCursor } from './pages.ts'
import { blockNumberParam } from './list-schemas.ts'
import { decodeTransactionInputs } from '../present/decodings.ts'
import type { Hex } from '../../core/rows.ts'
import type { Decoder } from '../../core/decode/index.ts'
import type { AddressNameReader, AddressNames } from '../../core/address-names/index.ts'
import type { ProxyDetector, ProxyInfo } from '../../core/verify/proxy.ts'
import { presentProxy } from '../present/present-smart-contract.ts'

const intString = { type: 'string' } as const

/** Blockscout's cursor of an address's transactions: the last one's position, and its time, hash, value and fee besides; a `filter` sent is kept. */
const addressTransactionList = listCursor({
  block_number: blockNumberParam,
  index: { type: 'integer', minimum: 0 },
  inserted_at: { type: 'string' },
  hash: { type: 'string' },
  value: { type: 'string' },
  fee: { type: 'string' },
  items_count: itemsCount
}, { filter: { type: 'string' } })

const addressDetail = {
  type: 'object',
  properties: {
    ...addressSchema.properties,
    creator_address_hash: { type: ['string', 'null'] },
    creation_transaction_hash: { type: ['string', 'null'] },
    creation_status: { type: ['string', 'null'] },
    token: { type: ['object', 'null'], additionalProperties: true },
    coin_balance: { type: ['string', 'null'] },
    exchange_rate: { type: ['string', 'null'] },
    block_number_balance_updated_at: { type: ['integer', 'null'] },
    has_validated_blocks: { type: 'boolean' },
    has_logs: { type: 'boolean' },
    has_tokens: { type: 'boolean' },
    has_token_transfers: { type: 'boolean' },
    has_beacon_chain_withdrawals: { type: 'boolean' },
    watchlist_address_id: { type: ['integer', 'null'] }
  }
} as const

/**
 * A proxy's kind and implementations, each named by its verified contract.
 * As Blockscout, a minimal proxy (EIP-1167) whose implementation is verified
 * shows as verified itself: it has no code of its own to verify.
 */
function proxyMembers (proxy: ProxyInfo | undefined, names: AddressNames, ownVerified: boolean) {
  const implementations = (proxy?.implementations ?? []).map((address) => {
    const named = names.get(address.toLowerCase())
    return { address, name: named?.isVerified === true ? named.name : null }
  })
  const verifiedAsProxy = proxy?.type === 'eip1167' && implementations.length > 0 && implementations.every((i) => i.name !== null)
  return { ...presentProxy(proxy, implementations), is_verified: ownVerified || verifiedAsProxy }
}

function presentAddress (address: Hex, a: AddressRecord | undefined, names: AddressNames, proxy: ProxyInfo | undefined) {
  const token = a?.token ?? null
  const shown = addressObject(address, a?.contract_code != null, names)
  return {
    ...shown,
    ...proxyMembers(proxy, names, shown.is_verified),
    creator_address_hash: a?.creator == null ? null : getAddress(a.creator),
    creation_transaction_hash: a?.creation_transaction ?? null,
    creation_status: a?.creation_status == null ? null : a.creation_status === 1 ? 'success' : 'failed',
    token: token === null ? null : presentToken({ ...token, address }),
    // Blockscout answers an address it never saw with a null balance, not a 404.
    coin_balance: a?.coin_balance ?? null,
    exchange_rate: null,
    block_number_balance_updated_at: a?.balance_block ?? null,
    has_validated_blocks: a?.has_validated_blocks ?? false,
    has_logs: a?.has_logs ?? false,
    has_tokens: a?.has_tokens ?? false,
    has_token_transfers: a !== undefined && BigInt(a.token_transfer_count) > 0n,
    has_beacon_chain_withdrawals: false,
    watchlist_address_id: null
  }
}

export type AddressRouteOptions = { decoder: Decoder, names: AddressNameReader, proxies: ProxyDetector | undefined }

export async function addressRoutes (app: RestApp, { decoder, names, proxies }: AddressRouteOptions): Promise<void> {
  const queries = app.queries

  app.get('/addresses/:address_hash_param', {
    schema: { tags: ['addresses'], summary: 'An address: balance, contract, creator, flags', params: addressHashParams, querystring: query(), response: { 200: addressDetail, 422: validationError } }
  }, async (request) => {
    const address = request.params.address_hash_param.toLowerCase() as Hex
    const found = await queries.findAddress(hashBytes(address))
    const code = found?.contract_code
    // Proxy slots are read from the node: without it (or while it does not answer) the address shows as no proxy.
    const proxy = code == null || proxies === undefined
      ? undefined
      : await proxies.detect(address, code.slice(2)).catch((err: unknown) => {
        request.log.warn({ err }, 'reading an address\'s proxy slots failed')
        return undefined
      })
    const named = await names.read([address, ...proxy?.implementations ?? []])
    return presentAddress(address, found, named, proxy)
  })

  app.get('/addresses/:address_hash_param/counters', {
    schema: {
      tags: ['addresses'],
      summary: 'Transaction, token transfer, gas and validation counts',
      params: addressHashParams,
      querystring: query(),
      response: {
        200: { type: 'object', properties: { transactions_count: intString, token_transfers_count: intString, gas_usage_count: intString, validations_count: intString } },
        422: validationError
      }
    }
  }, async (request) => {
    const hash = hashBytes(request.params.address_hash_param)
    const [address, validations] = await Promise.all([queries.findAddress(hash), queries.countValidatedBlocks(hash)])
    return {
      transactions_count: address?.transaction_count ?? '0',
      token_transfers_count: address?.token_transfer_count ?? '0',
      gas_usage_count: address?.gas_used ?? '0',
      validations_count: validations
    }
  })

  app.get('/addresses/:address_hash_param/transactions', {
    schema: {
      tags: ['addresses'],
      summary: 'The address\'s transactions, newest first (50 a page)',
      params: addressHashParams,
      querystring: query({
        filter: { type: 'string', enum: ['to', 'from'] },
        ...addressTransactionList.params
      }),
      response: { 200: addressTransactionList.response(transaction), 422: validationError }
    }
  }, async (request, reply) => {
    const q = request.query
    const cursor = blockIndexCursor(q)
    const [rows, confirmation] = await Promise.all([queries.listAddressTransactions({ hash: hashBytes(request.params.address_hash_param), filter: q.filter, cursor }), app.confirmationDuration()])
    const shown = rows.slice(0, PAGE_SIZE)
    const [decoded, named] = await Promise.all([decodeTransactionInputs(decoder, shown), names.read(shown.flatMap(transactionAddresses))])
    return await reply.type(JSON_TEXT).send(jsonPage(addressTransactionList.page(rows, (tx) => transactionJson(tx, confirmation, decoded(tx), named),
      (last) => nextAddressTransactionParams(last, q.filter))))
  })
}

function nextAddressTransactionParams (last: TransactionJsonRow, filter: AddressTransactionFilter) {
  const { timestamp, hash, value, fee } = transactionMembers(last)
  return {
    block_number: last.block_number,
    index: last.transaction_index,
    inserted_at: timestamp,
    hash,
    value,
    fee: fee.value,
    items_count: PAGE_SIZE,
    ...(filter === undefined ? {} : { filter })
  }
}
