// Response and parameter schemas shared by the REST routes. They validate
// input, serialise output (fields not listed here are not sent) and feed /api-docs.
// Each is `as const`: the type provider reads a route's request types from them.
import type { App } from '../app.ts'
import { nullable, addressObject } from '../present/schemas.ts'

/** The app as a REST route sees it (plugins/app.ts): `request.params`, `query` and `body` are typed from the route's schema. */
export type RestApp = App

export const ADDRESS_PATTERN = '^0x([A-Fa-f0-9]{40})$'
export const HASH_PATTERN = '^0x([A-Fa-f0-9]{64})$'

/** The path parameter naming an address, as Blockscout names it. */
export const addressHashParams = {
  type: 'object', required: ['address_hash_param'], properties: { address_hash_param: { type: 'string', pattern: ADDRESS_PATTERN } }
} as const
/** The path parameter naming a transaction. */
export const transactionHashParams = {
  type: 'object', required: ['transaction_hash_param'], properties: { transaction_hash_param: { type: 'string', pattern: HASH_PATTERN } }
} as const

export { nullable, addressObject }
export const intString = { type: 'string', pattern: '^-?[0-9]+$' } as const
const intStringNullable = { type: ['string', 'null'], pattern: '^-?[0-9]+$' } as const

export const block = {
  type: 'object',
  required: ['height', 'hash', 'parent_hash', 'timestamp', 'transactions_count', 'internal_transactions_count', 'miner', 'size', 'difficulty',
    'total_difficulty', 'gas_used', 'gas_limit', 'nonce', 'base_fee_per_gas', 'burnt_fees', 'priority_fee', 'uncles_hashes', 'rewards',
    'gas_target_percentage', 'gas_used_percentage', 'burnt_fees_percentage', 'transaction_fees', 'type', 'withdrawals_count', 'is_pending_update'],
  properties: {
    height: { type: 'integer' },
    hash: { type: 'string' },
    parent_hash: { type: 'string' },
    timestamp: { type: 'string' },
    transactions_count: { type: 'integer' },
    internal_transactions_count: nullable('integer'),
    withdrawals_count: nullable('integer'),
    miner: addressObject,
    size: nullable('integer'),
    difficulty: intStringNullable,
    total_difficulty: intStringNullable,
    gas_used: intString,
    gas_limit: intString,
    nonce: { type: 'string' },
    base_fee_per_gas: intStringNullable,
    burnt_fees: intStringNullable,
    priority_fee: intStringNullable,
    transaction_fees: intString,
    gas_used_percentage: { type: 'number' },
    gas_target_percentage: { type: 'number' },
    burnt_fees_percentage: nullable('number'),
    uncles_hashes: { type: 'array', items: { type: 'object', properties: { hash: { type: 'string' } } } },
    rewards: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, reward: intString } } },
    type: { type: 'string', enum: ['block', 'uncle', 'reorg'] },
    is_pending_update: nullable('boolean')
  }
} as const

/** `{ items, next_page_params }`; next_page_params is null on the last page. */
export const page = <const Item extends object, const Cursor extends Record<string, object>>(item: Item, cursor: Cursor) => ({
  type: 'object',
  required: ['items', 'next_page_params'],
  properties: {
    items: { type: 'array', items: item },
    next_page_params: { type: ['object', 'null'], properties: cursor, additionalProperties: true }
  }
} as const)

/** Blockscout's 422 body for parameters that fail validation. */
export const validationError = {
  type: 'object',
  properties: {
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { title: { type: 'string' }, source: { type: 'object', properties: { pointer: { type: 'string' } } }, detail: { type: 'string' } }
      }
    }
  }
} as const

export const message = { type: 'object', properties: { message: { type: 'string' } } } as const

/** Every operation accepts `apikey` and `key`; nothing else unless declared. */
export const query = <const Properties extends Record<string, object> = {}>(properties: Properties = {} as Properties) => ({
  type: 'object',
  additionalProperties: false,
  properties: { apikey: { type: 'string' }, key: { type: 'string' }, ...properties }
} as const)

export const itemsCount = { type: 'integer', minimum: 1, maximum: 50 } as const

const anyObject = { type: 'object', additionalProperties: true } as const
const anyObjectOrNull = { type: ['object', 'null'], additionalProperties: true } as const

/**
 * Blockscout's DecodedInput (`indexed` false) and DecodedLogInput (true):
 * a value is a string, or nested arrays of them for arrays and tuples.
 */
export const decoded = (indexed: boolean) => ({
  type: ['object', 'null'],
  required: ['method_id', 'method_call', 'parameters'],
  properties: {
    method_id: { type: 'string', description: 'The selector (a log: topic 0\'s first four bytes), lowercase hex without 0x' },
    method_call: { type: 'string', description: 'The signature with parameter names, as `transfer(address to, uint256 amount)`' },
    parameters: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'type', 'value', ...indexed ? ['indexed'] : []],
        properties: {
          name: { type: 'string' },
          type: { type: 'string' },
          ...indexed ? { indexed: { type: 'boolean' } } : {},
          value: { description: 'A string (uints decimal, addresses EIP-55, bytes 0x-hex), or nested arrays for arrays and tuples' }
        }
      }
    }
  }
} as const)

export const tokenTransfer = {
  type: 'object',
  properties: {
    transaction_hash: { type: 'string' },
    from: addressObject,
    to: addressObject,
    total: anyObjectOrNull,
    token: anyObjectOrNull,
    type: { type: 'string' },
    timestamp: nullable('string'),
    method: nullable('string'),
    block_hash: { type: 'string' },
    block_number: { type: 'integer' },
    log_index: { type: 'integer' },
    token_type: { type: 'string' }
  }
} as const

const addressOrNull = { ...addressObject, type: ['object', 'null'] } as const

export const transaction = {
  type: 'object',
  required: ['hash', 'result', 'status', 'block_number', 'timestamp', 'from', 'to', 'created_contract', 'confirmations', 'confirmation_duration',
    'value', 'fee', 'gas_price', 'type', 'gas_used', 'gas_limit', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'base_fee_per_gas'],
  properties: {
    hash: { type: 'string' },
    result: { type: 'string' },
    status: nullable('string'),
    block_number: nullable('integer'),
    timestamp: nullable('string'),
    confirmations: { type: 'integer' },
    confirmation_duration: { type: 'array', items: { type: 'integer' } },
    from: addressObject,
    to: addressOrNull,
    created_contract: addressOrNull,
    value: intString,
    fee: { type: 'object', properties: { type: { type: 'string' }, value: intStringNullable } },
    gas_price: intStringNullable,
    gas_used: intStringNullable,
    gas_limit: intString,
    max_fee_per_gas: intStringNullable,
    max_priority_fee_per_gas: intStringNullable,
    base_fee_per_gas: intStringNullable,
    priority_fee: intStringNullable,
    transaction_burnt_fee: intStringNullable,
    type: nullable('integer'),
    nonce: { type: 'integer' },
    position: nullable('integer'),
    raw_input: { type: 'string' },
    decoded_input: decoded(false),
    method: nullable('string'),
    revert_reason: anyObjectOrNull,
    token_transfers: { type: ['array', 'null'], items: tokenTransfer },
    token_transfers_overflow: nullable('boolean'),
    transaction_types: { type: 'array', items: { type: 'string' } },
    transaction_tag: nullable('string'),
    exchange_rate: nullable('string'),
    historic_exchange_rate: nullable('string'),
    has_error_in_internal_transactions: nullable('boolean'),
    authorization_list: { type: 'array', items: anyObject },
    is_pending_update: nullable('boolean'),
    fhe_operations_count: { type: 'integer' }
  }
} as const
