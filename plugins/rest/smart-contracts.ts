// Smart contracts: the verified list, the counters, the verification form's
// configuration and a contract's detail (code from the index; sources and
// ABI once verified, or its twin's; proxy kind and implementations read from
// the node). Verifying is in smart-contract-verification.ts.
import {
  countVerifiedContracts, findVerifiedContract, findVerifiedTwin, listVerifiedContracts, runtimeCodeHash, type Verifier
} from '../../core/verify/index.ts'
import { EVM_VERSIONS } from '../../core/verify/input.ts'
import { LICENSE_TYPES } from '../../core/verify/licenses.ts'
import { addressObject, hashBytes, msTimestamp } from '../present/present.ts'
import { presentProxy, presentVerified, smartContractListItem, smartContractSchema, type Implementation } from '../present/present-smart-contract.ts'
import { addressHashParams, itemsCount, message, page, query, validationError, type RestApp } from './schemas.ts'
import { cursorAddress, cursorInteger } from './token-schemas.ts'
import { NotFoundError } from '../../core/errors.ts'
import type { AddressNameReader } from '../../core/address-names/index.ts'

const intString = { type: 'string', pattern: '^[0-9]+$' } as const
const emptyOrNull = { type: 'string', pattern: '^(null)?$' } as const
const PAGE_SIZE = 50

/** The methods smart-contract-verification.ts serves. */
export const VERIFICATION_METHODS = ['flattened-code', 'standard-input', 'multi-part']

const licenseTypes = Object.fromEntries(LICENSE_TYPES.map((name, i) => [name, i + 1]))

const strings = { type: 'array', items: { type: 'string' } } as const
const verificationConfig = {
  type: 'object',
  properties: {
    solidity_compiler_versions: strings,
    solidity_evm_versions: strings,
    vyper_compiler_versions: strings,
    vyper_evm_versions: strings,
    verification_options: strings,
    is_rust_verifier_microservice_enabled: { type: 'boolean' },
    license_types: { type: 'object', properties: Object.fromEntries(LICENSE_TYPES.map((k) => [k, { type: 'integer' }])) }
  }
} as const

export async function smartContractRoutes (app: RestApp, { verifier, names }: { verifier: Verifier, names: AddressNameReader }): Promise<void> {
  const db = app.db.knex
  const queries = app.queries

  // As /tokens: the spec writes a trailing slash, which the router ignores (plugins/index.ts).
  app.get('/smart-contracts', {
    schema: {
      tags: ['smart-contracts'],
      summary: 'Verified contracts, newest verified first (q: part of a name or address; every one is Solidity)',
      querystring: query({
        q: { type: 'string' },
        filter: { type: 'string', enum: ['solidity', 'vyper', 'yul', 'geas'] },
        sort: { type: 'string', enum: ['balance', 'transactions_count'] },
        order: { type: 'string', enum: ['asc', 'desc'] },
        smart_contract_id: cursorInteger,
        coin_balance: { anyOf: [{ type: 'integer' }, emptyOrNull] },
        hash: cursorAddress,
        transactions_count: { anyOf: [{ type: 'integer' }, emptyOrNull] },
        items_count: itemsCount
      }),
      response: { 200: page(smartContractListItem, {}), 422: validationError }
    }
  }, async (request) => {
    const { q, filter, smart_contract_id: beforeId } = request.query
    // Only Solidity is verified here: another language's list is empty.
    if (filter !== undefined && filter !== 'solidity') return { items: [], next_page_params: null }
    const rows = await listVerifiedContracts(db, { q, beforeId, limit: PAGE_SIZE + 1 })
    const items = rows.slice(0, PAGE_SIZE)
    // The contracts' public tags; the name and flag are the rows' own (read with them, so never older).
    const named = await names.read(items.map((c) => c.address))
    return {
      items: items.map((c) => ({
        address: { ...addressObject(c.address, true, named), name: c.name, is_verified: true },
        compiler_version: c.compilerVersion,
        optimization_enabled: c.optimization,
        transactions_count: c.transactionCount,
        language: c.language,
        verified_at: msTimestamp(c.verifiedAtMs),
        market_cap: null,
        has_constructor_args: c.constructorArguments !== null,
        coin_balance: c.coinBalance,
        license_type: c.licenseType,
        certified: false,
        reputation: 'ok'
      })),
      next_page_params: rows.length > PAGE_SIZE ? { smart_contract_id: items.at(-1)!.id, items_count: PAGE_SIZE } : null
    }
  })

  app.get('/smart-contracts/verification/config', {
    schema: {
      tags: ['smart-contracts'],
      summary: 'What contract verification offers: compiler versions (bundled, SOLC_CACHE_DIR\'s, and with SOLC_DOWNLOAD the listed releases), evm versions, methods, Blockscout\'s licence ids',
      querystring: query(),
      response: { 200: verificationConfig, 422: validationError }
    }
  }, async () => ({
    solidity_compiler_versions: await verifier.compiler.offeredVersions(),
    solidity_evm_versions: EVM_VERSIONS,
    vyper_compiler_versions: [],
    vyper_evm_versions: [],
    verification_options: VERIFICATION_METHODS,
    is_rust_verifier_microservice_enabled: false,
    license_types: licenseTypes
  }))

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
    const [counts, verified] = await Promise.all([queries.countContracts(), countVerifiedContracts(db)])
    return {
      smart_contracts: counts.contracts,
      new_smart_contracts_24h: counts.new_contracts_24h,
      verified_smart_contracts: verified.verified,
      new_verified_smart_contracts_24h: verified.verified24h
    }
  })

  app.get('/smart-contracts/:address_hash_param', {
    schema: {
      tags: ['smart-contracts'],
      summary: 'A contract: code, creation code, proxy kind; sources, ABI and settings once verified (or its twin is). 404 without code',
      params: addressHashParams,
      querystring: query(),
      response: { 200: smartContractSchema, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const address = request.params.address_hash_param.toLowerCase()
    const found = await queries.findContract(hashBytes(address))
    if (found === undefined) throw new NotFoundError()
    const code = found.code.slice(2)
    const [verified, proxy] = await Promise.all([
      findVerifiedContract(db, address),
      verifier.proxies?.detect(address, code).catch((err: unknown) => {
        request.log.warn({ err }, 'reading a contract\'s proxy slots failed')
        return undefined
      })
    ])
    const twin = verified === null ? await findVerifiedTwin(db, runtimeCodeHash(code), address) : null
    const implementations: Implementation[] = await Promise.all((proxy?.implementations ?? []).map(async (implementation) =>
      ({ address: implementation, name: (await findVerifiedContract(db, implementation))?.name ?? null })))
    const shown = verified ?? twin
    return {
      ...presentProxy(proxy, implementations),
      conflicting_implementations: null,
      deployed_bytecode: found.code,
      creation_bytecode: found.creation_code,
      creation_status: 'success',
      ...(shown === null ? {} : presentVerified(shown, verified === null))
    }
  })
}
