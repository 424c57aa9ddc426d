// Smart contracts before verification exists: every contract answers as
// Blockscout answers for an unverified one (proxy fields, bytecode and
// creation code from the index), the verified list is empty and the verified
// counts are zero until verification stores sources.
import type { FastifyInstance } from 'fastify'
import { countContracts, findContract } from '../../core/queries/smart-contracts.ts'
import { hex, hashBytes } from './present.ts'
import { addressHashParams, addressObject, itemsCount, message, nullable, page, query, validationError, type AddressHashParams } from './schemas.ts'
import { cursorAddress } from './token-schemas.ts'
import { NotFoundError } from '../../core/errors.ts'

const intString = { type: 'string', pattern: '^[0-9]+$' }
const emptyOrNull = { type: 'string', pattern: '^(null)?$' }

const unverifiedContract = {
  type: 'object',
  required: ['proxy_type', 'implementations', 'conflicting_implementations', 'deployed_bytecode', 'creation_bytecode', 'creation_status'],
  properties: {
    proxy_type: nullable('string'),
    implementations: { type: 'array', items: { type: 'object', properties: { address_hash: { type: 'string' }, name: nullable('string') } } },
    conflicting_implementations: { type: ['array', 'null'], items: { type: 'object', additionalProperties: true } },
    deployed_bytecode: nullable('string'),
    creation_bytecode: nullable('string'),
    creation_status: nullable('string')
  }
}

// Verification is not built: no compiler versions to pick and no method to
// offer, so a front end's verification form has nothing to submit. The
// licence ids are Blockscout's own, which its forms and stored contracts use.
const VERIFICATION_CONFIG = {
  solidity_compiler_versions: [],
  solidity_evm_versions: [],
  vyper_compiler_versions: [],
  vyper_evm_versions: [],
  verification_options: [],
  is_rust_verifier_microservice_enabled: false,
  // Numbered from 1 in this order.
  license_types: Object.fromEntries(['none', 'unlicense', 'mit', 'gnu_gpl_v2', 'gnu_gpl_v3', 'gnu_lgpl_v2_1', 'gnu_lgpl_v3',
    'bsd_2_clause', 'bsd_3_clause', 'mpl_2_0', 'osl_3_0', 'apache_2_0', 'gnu_agpl_v3', 'bsl_1_1'].map((name, i) => [name, i + 1]))
}

const strings = { type: 'array', items: { type: 'string' } }
const verificationConfig = {
  type: 'object',
  properties: {
    solidity_compiler_versions: strings,
    solidity_evm_versions: strings,
    vyper_compiler_versions: strings,
    vyper_evm_versions: strings,
    verification_options: strings,
    is_rust_verifier_microservice_enabled: { type: 'boolean' },
    license_types: { type: 'object', properties: Object.fromEntries(Object.keys(VERIFICATION_CONFIG.license_types).map((k) => [k, { type: 'integer' }])) }
  }
}

const listItem = {
  type: 'object',
  properties: {
    address: addressObject,
    compiler_version: nullable('string'),
    optimization_enabled: nullable('boolean'),
    transactions_count: nullable('integer'),
    language: nullable('string'),
    verified_at: nullable('string'),
    market_cap: nullable('string'),
    has_constructor_args: nullable('boolean'),
    coin_balance: nullable('string'),
    license_type: nullable('string'),
    certified: { type: 'boolean' },
    reputation: nullable('string')
  }
}

export async function smartContractRoutes (app: FastifyInstance): Promise<void> {
  const db = app.db.knex

  // As /tokens: the spec writes a trailing slash, which the router ignores (plugins/index.ts).
  app.get('/smart-contracts', {
    schema: {
      tags: ['smart-contracts'],
      summary: 'Verified contracts (none until verification is available)',
      querystring: query({
        q: { type: 'string' },
        filter: { type: 'string', enum: ['solidity', 'vyper', 'yul', 'geas'] },
        sort: { type: 'string', enum: ['balance', 'transactions_count'] },
        order: { type: 'string', enum: ['asc', 'desc'] },
        smart_contract_id: { type: 'integer' },
        coin_balance: { anyOf: [{ type: 'integer' }, emptyOrNull] },
        hash: cursorAddress,
        transactions_count: { anyOf: [{ type: 'integer' }, emptyOrNull] },
        items_count: itemsCount
      }),
      response: { 200: page(listItem, {}), 422: validationError }
    }
  }, async () => ({ items: [], next_page_params: null }))

  app.get('/smart-contracts/verification/config', {
    schema: {
      tags: ['smart-contracts'],
      summary: 'What contract verification offers: nothing yet (no compiler, no method), with Blockscout\'s licence ids',
      querystring: query(),
      response: { 200: verificationConfig, 422: validationError }
    }
  }, async () => VERIFICATION_CONFIG)

  app.get('/smart-contracts/counters', {
    schema: {
      tags: ['smart-contracts'],
      summary: 'Contracts, new contracts in 24 hours, verified contracts',
      querystring: query(),
      response: {
        200: {
          type: 'object',
          properties: { smart_contracts: intString, new_smart_contracts_24h: intString, verified_smart_contracts: intString, new_verified_smart_contracts_24h: intString }
        },
        422: validationError
      }
    }
  }, async () => {
    const counts = await countContracts(db)
    return { smart_contracts: counts.contracts, new_smart_contracts_24h: counts.new_contracts_24h, verified_smart_contracts: '0', new_verified_smart_contracts_24h: '0' }
  })

  app.get<{ Params: AddressHashParams }>('/smart-contracts/:address_hash_param', {
    schema: {
      tags: ['smart-contracts'],
      summary: 'A contract: deployed and creation bytecode (404 for an address without code)',
      params: addressHashParams,
      querystring: query(),
      response: { 200: unverifiedContract, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const found = await findContract(db, hashBytes(request.params.address_hash_param))
    if (found === undefined) throw new NotFoundError()
    return {
      proxy_type: null,
      implementations: [],
      conflicting_implementations: null,
      deployed_bytecode: hex(found.code),
      creation_bytecode: found.creation_code === null ? null : hex(found.creation_code),
      creation_status: 'success'
    }
  })
}
