// Schemas of GET /api/v2/advanced-filters: its query string (Blockscout's
// names; lists are comma-separated strings) and its response
// (AdvancedFilterResponse of Blockscout 11.2.7's OpenAPI description).
import type { FromSchema } from 'json-schema-to-ts'
import { ADDRESS_PATTERN, addressObject, nullable, query } from './schemas.ts'
import { cursorInteger, token } from './token-schemas.ts'

const address = ADDRESS_PATTERN.slice(1, -1)
const addressList = { type: 'string', maxLength: 2000, pattern: `^\\s*(${address}\\s*(,\\s*${address}\\s*)*)?$` } as const
const tokenList = { type: 'string', maxLength: 2000, pattern: `^\\s*((${address}|[nN][aA][tT][iI][vV][eE])\\s*(,\\s*(${address}|[nN][aA][tT][iI][vV][eE])\\s*)*)?$` } as const
const freeList = { type: 'string', maxLength: 2000 } as const
const isoTime = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$' } as const
const amount = { type: 'string', pattern: '^\\s*[0-9]{1,78}(\\.[0-9]{1,78})?\\s*$' } as const
/** A sub-index of the cursor: a number, or empty / "null" where the last item had none. */
const subIndex = { type: 'string', pattern: '^(([1-9][0-9]{0,9})|0|null)?$' } as const

export const advancedFilterQuery = query({
  transaction_types: freeList,
  methods: freeList,
  age_from: isoTime,
  age_to: isoTime,
  from_address_hashes_to_include: addressList,
  from_address_hashes_to_exclude: addressList,
  to_address_hashes_to_include: addressList,
  to_address_hashes_to_exclude: addressList,
  address_relation: { type: 'string', maxLength: 10 },
  amount_from: amount,
  amount_to: amount,
  token_contract_address_hashes_to_include: tokenList,
  token_contract_address_hashes_to_exclude: tokenList,
  // Accepted as Blockscout accepts them; they name, they do not filter (the selectors and addresses do).
  methods_names: freeList,
  token_contract_symbols_to_include: freeList,
  token_contract_symbols_to_exclude: freeList,
  block_number: cursorInteger,
  transaction_index: { type: 'integer', minimum: 0, maximum: 2 ** 31 - 1 },
  internal_transaction_index: subIndex,
  token_transfer_index: subIndex,
  token_transfer_batch_index: subIndex,
  items_count: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }
})

/** The query as the route receives it, read from its schema. */
export type AdvancedFilterQuery = FromSchema<typeof advancedFilterQuery>

const addressOrNull = { ...addressObject, type: ['object', 'null'] } as const
const amountString = { type: 'string', pattern: '^([1-9][0-9]*|0)$' } as const
const intStringNullable = { type: ['string', 'null'] } as const

/** An item's position: its keys are the cursor's. */
const position = {
  block_number: { type: 'integer' },
  transaction_index: { type: 'integer' },
  internal_transaction_index: nullable('integer'),
  token_transfer_index: nullable('integer'),
  token_transfer_batch_index: nullable('integer')
} as const

const item = {
  type: 'object',
  required: ['hash', 'type', 'status', 'method', 'from', 'to', 'created_contract', 'value', 'total', 'token', 'timestamp', 'block_number',
    'transaction_index', 'internal_transaction_index', 'token_transfer_index', 'token_transfer_batch_index', 'fee'],
  properties: {
    hash: { type: 'string' },
    type: { type: 'string', enum: ['coin_transfer', 'contract_interaction', 'contract_creation', 'ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404', 'ERC-7984'] },
    status: { type: 'string' },
    method: nullable('string'),
    from: addressOrNull,
    to: addressOrNull,
    created_contract: addressOrNull,
    value: { type: ['string', 'null'], pattern: '^([1-9][0-9]*|0)$' },
    total: {
      type: ['object', 'null'],
      properties: { value: intStringNullable, decimals: intStringNullable, token_id: intStringNullable, token_instance: { type: ['object', 'null'], additionalProperties: true } }
    },
    token: { ...token, type: ['object', 'null'] },
    timestamp: { type: 'string' },
    ...position,
    fee: amountString
  }
} as const

export const advancedFilterResponse = {
  type: 'object',
  required: ['items', 'next_page_params', 'search_params'],
  properties: {
    items: { type: 'array', items: item },
    next_page_params: {
      type: ['object', 'null'],
      properties: { ...position, items_count: { type: 'integer' } }
    },
    search_params: {
      type: 'object',
      required: ['methods', 'tokens'],
      properties: {
        methods: { type: 'object', additionalProperties: { type: 'string' } },
        tokens: { type: 'object', additionalProperties: token }
      }
    }
  }
} as const
