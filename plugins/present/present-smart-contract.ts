// A smart contract's detail in Blockscout's shape: the six keys of any
// contract, plus the verified fields when it, or a twin with its code, is
// verified. Constructor arguments are decoded with the constructor's ABI.
import { AbiCoder, ParamType } from 'ethers'
import type { AbiItem, AbiParameter, ProxyInfo, VerifiedContract } from '../../core/verify/index.ts'
import { checksumAddress, msTimestamp } from './present.ts'
import { addressObject, nullable } from './schemas.ts'

const anyArray = { type: ['array', 'null'], items: {} } as const
const implementationList = { type: ['array', 'null'], items: { type: 'object', properties: { address_hash: { type: 'string' }, name: nullable('string') } } } as const

export const smartContractSchema = {
  type: 'object',
  required: ['proxy_type', 'implementations', 'conflicting_implementations', 'deployed_bytecode', 'creation_bytecode', 'creation_status'],
  properties: {
    proxy_type: nullable('string'),
    implementations: implementationList,
    conflicting_implementations: { type: ['array', 'null'], items: { type: 'object', additionalProperties: true } },
    deployed_bytecode: nullable('string'),
    creation_bytecode: nullable('string'),
    creation_status: nullable('string'),
    verified_twin_address_hash: nullable('string'),
    is_verified: nullable('boolean'),
    is_changed_bytecode: nullable('boolean'),
    is_partially_verified: nullable('boolean'),
    is_fully_verified: nullable('boolean'),
    is_verified_via_sourcify: nullable('boolean'),
    is_verified_via_eth_bytecode_db: nullable('boolean'),
    is_verified_via_verifier_alliance: nullable('boolean'),
    sourcify_repo_url: nullable('string'),
    can_be_visualized_via_sol2uml: nullable('boolean'),
    name: nullable('string'),
    compiler_version: nullable('string'),
    optimization_enabled: nullable('boolean'),
    optimization_runs: nullable('integer'),
    evm_version: nullable('string'),
    verified_at: nullable('string'),
    abi: { type: ['array', 'null'], items: { type: 'object', additionalProperties: true } },
    source_code: nullable('string'),
    file_path: nullable('string'),
    additional_sources: { type: ['array', 'null'], items: { type: 'object', properties: { file_path: { type: 'string' }, source_code: { type: 'string' } } } },
    compiler_settings: { type: ['object', 'null'], additionalProperties: true },
    external_libraries: implementationList,
    constructor_args: nullable('string'),
    decoded_constructor_args: { type: ['array', 'null'], items: anyArray },
    language: nullable('string'),
    license_type: nullable('string'),
    certified: { type: 'boolean' },
    is_blueprint: nullable('boolean'),
    has_constructor_args: nullable('boolean')
  }
} as const

export const smartContractListItem = {
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
} as const

/** An ABI value as JSON: numbers as decimal strings, tuples and arrays as arrays. */
function jsonValue (value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString()
  if (Array.isArray(value)) return Array.from(value, jsonValue)
  return value
}

/** Blockscout's decoded_constructor_args: [value, input] pairs; null without arguments or when they do not decode. */
export function decodeConstructorArgs (abi: AbiItem[], args: string | null): Array<[unknown, AbiParameter]> | null {
  const inputs = abi.find((item) => item.type === 'constructor')?.inputs ?? []
  if (args === null || inputs.length === 0) return null
  try {
    const values = AbiCoder.defaultAbiCoder().decode(inputs.map((input) => ParamType.from(input)), args)
    return inputs.map((input, i) => [jsonValue(values[i]), input])
  } catch {
    return null
  }
}

export type Implementation = { address: string, name: string | null }

export function presentProxy (proxy: ProxyInfo | undefined, implementations: Implementation[]) {
  return {
    proxy_type: proxy?.type ?? null,
    implementations: implementations.map((i) => ({ address_hash: checksumAddress(i.address), name: i.name }))
  }
}

/** The verified fields: of the contract itself, or of its twin (then shown as a partial verification of this address, without arguments of its own). */
export function presentVerified (contract: VerifiedContract, twin: boolean) {
  const [main, ...others] = [contract.filePath, ...Object.keys(contract.sources).filter((path) => path !== contract.filePath)]
  const constructorArgs = twin ? null : contract.constructorArguments
  return {
    verified_twin_address_hash: twin ? checksumAddress(contract.address) : null,
    is_verified: true,
    is_changed_bytecode: false,
    is_partially_verified: twin || contract.matchType === 'partial',
    is_fully_verified: !twin && contract.matchType === 'full',
    is_verified_via_sourcify: false,
    is_verified_via_eth_bytecode_db: false,
    is_verified_via_verifier_alliance: false,
    sourcify_repo_url: null,
    can_be_visualized_via_sol2uml: false,
    name: contract.name,
    compiler_version: contract.compilerVersion,
    optimization_enabled: contract.optimization,
    optimization_runs: contract.optimizationRuns,
    evm_version: contract.evmVersion,
    verified_at: msTimestamp(contract.verifiedAtMs),
    abi: contract.abi,
    source_code: contract.sources[main!] ?? null,
    file_path: main!,
    additional_sources: others.map((path) => ({ file_path: path, source_code: contract.sources[path]! })),
    compiler_settings: contract.compilerSettings,
    external_libraries: contract.externalLibraries.map((l) => ({ name: l.name, address_hash: checksumAddress(l.address) })),
    constructor_args: constructorArgs,
    decoded_constructor_args: decodeConstructorArgs(contract.abi, constructorArgs),
    language: contract.language,
    license_type: contract.licenseType,
    certified: false,
    is_blueprint: false,
    has_constructor_args: constructorArgs !== null
  }
}
