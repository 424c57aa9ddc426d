// Schemas of the item kinds in the REST sub-lists (internal transactions,
// logs, state changes, raw traces) and of their query parameters.
import { ADDRESS_PATTERN, HASH_PATTERN, addressObject, decoded, intString, itemsCount, nullable } from './schemas.ts'
import { listCursor } from './pages.ts'

const addressOrNull = { ...addressObject, type: ['object', 'null'] } as const
const anyObject = { type: ['object', 'null'], additionalProperties: true } as const

export const internalTransaction = {
  type: 'object',
  required: ['error', 'success', 'type', 'transaction_hash', 'transaction_index', 'from', 'to', 'created_contract', 'value', 'block_number',
    'timestamp', 'index', 'gas_limit'],
  properties: {
    error: nullable('string'),
    success: { type: 'boolean' },
    type: { type: 'string' },
    transaction_hash: { type: 'string' },
    transaction_index: { type: 'integer' },
    from: addressObject,
    to: addressOrNull,
    created_contract: addressOrNull,
    value: intString,
    block_number: { type: 'integer' },
    timestamp: { type: 'string' },
    index: { type: 'integer' },
    gas_limit: intString
  }
} as const

export const log = {
  type: 'object',
  required: ['transaction_hash', 'address', 'topics', 'data', 'index', 'decoded', 'smart_contract', 'block_hash', 'block_number', 'block_timestamp'],
  properties: {
    transaction_hash: { type: 'string' },
    address: addressObject,
    topics: { type: 'array', items: nullable('string') },
    data: { type: 'string' },
    index: { type: 'integer' },
    decoded: decoded(true),
    smart_contract: addressOrNull,
    block_hash: { type: 'string' },
    block_number: { type: 'integer' },
    block_timestamp: nullable('string')
  }
} as const

export const stateChange = {
  type: 'object',
  required: ['address', 'is_miner', 'type', 'token', 'token_id', 'balance_before', 'balance_after', 'change'],
  properties: {
    address: addressObject,
    is_miner: { type: 'boolean' },
    type: { type: 'string', enum: ['coin', 'token'] },
    token: anyObject,
    token_id: { type: ['string', 'null'] },
    balance_before: { type: ['string', 'null'] },
    balance_after: { type: ['string', 'null'] },
    // A string, or for ERC-721 the tokens moved: [{ total, direction }].
    change: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'object', additionalProperties: true } }] }
  }
} as const

const hexString = { type: 'string' } as const
export const rawTrace = {
  type: 'array',
  items: {
    type: 'object',
    required: ['action', 'subtraces', 'traceAddress', 'type'],
    properties: {
      type: { type: 'string' },
      action: {
        type: 'object',
        properties: { callType: hexString, from: hexString, to: hexString, gas: hexString, input: hexString, init: hexString, value: hexString }
      },
      result: { type: 'object', properties: { gasUsed: hexString, output: hexString, address: hexString, code: hexString } },
      error: { type: 'string' },
      subtraces: { type: 'integer' },
      traceAddress: { type: 'array', items: { type: 'integer' } },
      transactionHash: { type: 'string' }
    }
  }
} as const

// Query parameters. Cursor integers take any integer, as Blockscout declares
// them; the routes clamp them into their columns.
export const integer = { type: 'integer' } as const
export const blockNumberParam = { type: 'integer', minimum: 0 } as const
const fullHash = { type: 'string', pattern: HASH_PATTERN } as const
const TOKEN_TYPE = '[Ee][Rr][Cc]-(20|721|1155|404|7984)'
/** A comma list of token types, maybe in brackets, any case, or empty. */
export const tokenTypes = { type: 'string', pattern: `^(\\[?${TOKEN_TYPE}(,${TOKEN_TYPE})*\\]?)?$` } as const
export const addressParam = { type: 'string', pattern: ADDRESS_PATTERN } as const

/** Token transfers resume after (block, log); inside an ERC-1155 batch the batch_* keys name the item. */
export const tokenTransferList = listCursor({
  block_number: blockNumberParam,
  index: integer,
  batch_log_index: integer,
  batch_block_hash: fullHash,
  batch_transaction_hash: fullHash,
  index_in_batch: integer
})
export const internalTransactionList = listCursor({ block_number: blockNumberParam, transaction_index: integer, index: integer, items_count: itemsCount })
/** Lists in (block, index) order: a block's transactions, logs. */
export const blockIndexList = listCursor({ block_number: blockNumberParam, index: integer, items_count: itemsCount })
export { fullHash as hashParam }
