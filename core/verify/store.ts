// Verified contracts in PostgreSQL (table verified_contracts). The decoding
// of transaction inputs and logs reads findVerifiedContract: keep it small
// and its answer stable.
import type { Knex } from 'knex'
import type { MatchType } from './bytecode.ts'
import { announceNameChange } from '../address-names/notify.ts'

export type VerifiedContract = {
  /** 0x and 40 lower-case hex digits. */
  address: string
  name: string
  language: 'solidity'
  /** Blockscout's spelling: v0.8.28+commit.7893614a. */
  compilerVersion: string
  /** The standard JSON input's settings, as compiled. */
  compilerSettings: Record<string, unknown>
  /** Source path -> content. */
  sources: Record<string, string>
  /** The source file that holds the contract. */
  filePath: string
  /** The contract's ABI as solc wrote it. */
  abi: AbiItem[]
  /** The constructor's ABI-encoded arguments (0x-hex), null when the creation input is unknown and none were given. */
  constructorArguments: string | null
  matchType: MatchType
  evmVersion: string | null
  optimization: boolean
  optimizationRuns: number | null
  licenseType: string | null
  externalLibraries: Array<{ name: string, address: string }>
  /** standard-input, flattened-code, multi-part or etherscan. */
  verificationMethod: string
  /** When it was verified, in epoch milliseconds (the stored microseconds truncated). */
  verifiedAtMs: number
}

/** An ABI entry as solc writes it. */
export type AbiItem = { type: string, name?: string, inputs?: AbiParameter[], outputs?: AbiParameter[], stateMutability?: string, anonymous?: boolean }
export type AbiParameter = { name: string, type: string, internalType?: string, indexed?: boolean, components?: AbiParameter[] }

export type VerifiedContractRow = Omit<VerifiedContract, 'verifiedAtMs'> & { runtimeCodeHash: Buffer }

const bytes = (hex: string): Buffer => Buffer.from(hex.replace(/^0x/, ''), 'hex')
const addressBytes = (address: string | Buffer): Buffer => typeof address === 'string' ? bytes(address) : address

const COLUMNS = `'0x' || encode(address, 'hex') as address, name, language, compiler_version, compiler_settings, source_files, file_path, abi,
  case when constructor_arguments is null then null else '0x' || encode(constructor_arguments, 'hex') end as constructor_arguments,
  match_type, evm_version, optimization, optimization_runs, license_type, external_libraries, verification_method,
  floor(extract(epoch from verified_at) * 1000)::float8 as verified_at_ms`

function fromRow (row: Record<string, any>): VerifiedContract {
  return {
    address: row.address,
    name: row.name,
    language: row.language,
    compilerVersion: row.compiler_version,
    compilerSettings: row.compiler_settings,
    sources: row.source_files,
    filePath: row.file_path,
    abi: row.abi,
    constructorArguments: row.constructor_arguments,
    matchType: row.match_type,
    evmVersion: row.evm_version,
    optimization: row.optimization,
    optimizationRuns: row.optimization_runs,
    licenseType: row.license_type,
    externalLibraries: row.external_libraries,
    verificationMethod: row.verification_method,
    verifiedAtMs: row.verified_at_ms
  }
}

/** The verified contract at `address` (0x-hex or 20 bytes), or null: its name and ABI decode its calls and logs. */
export async function findVerifiedContract (db: Knex, address: string | Buffer): Promise<VerifiedContract | null> {
  const { rows } = await db.raw(`select ${COLUMNS} from verified_contracts where address = ?`, [addressBytes(address)])
  return rows[0] === undefined ? null : fromRow(rows[0])
}

/** The verified contracts among `addresses`, keyed by 0x lower-case address: one query for a page of calls or logs. */
export async function findVerifiedContracts (db: Knex, addresses: Array<string | Buffer>): Promise<Map<string, VerifiedContract>> {
  if (addresses.length === 0) return new Map()
  const { rows } = await db.raw(`select ${COLUMNS} from verified_contracts where address = any(?)`, [addresses.map(addressBytes)])
  return new Map(rows.map((row: Record<string, any>) => [row.address, fromRow(row)]))
}

/**
 * Stores a verification. A full match replaces whatever was there; a partial
 * one replaces only a partial one. False when a full match was already stored.
 */
export async function storeVerifiedContract (db: Knex, row: VerifiedContractRow): Promise<boolean> {
  const { rows } = await db.raw(`insert into verified_contracts (address, name, language, compiler_version, compiler_settings, source_files,
      file_path, abi, constructor_arguments, match_type, evm_version, optimization, optimization_runs, license_type, external_libraries,
      verification_method, runtime_code_hash)
    values (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)
    on conflict (address) do update set name = excluded.name, language = excluded.language, compiler_version = excluded.compiler_version,
      compiler_settings = excluded.compiler_settings, source_files = excluded.source_files, file_path = excluded.file_path, abi = excluded.abi,
      constructor_arguments = excluded.constructor_arguments, match_type = excluded.match_type, evm_version = excluded.evm_version,
      optimization = excluded.optimization, optimization_runs = excluded.optimization_runs, license_type = excluded.license_type,
      external_libraries = excluded.external_libraries, verification_method = excluded.verification_method,
      runtime_code_hash = excluded.runtime_code_hash, verified_at = now()
    where verified_contracts.match_type = 'partial'
    returning 1`, [
    bytes(row.address), row.name, row.language, row.compilerVersion, JSON.stringify(row.compilerSettings), JSON.stringify(row.sources),
    row.filePath, JSON.stringify(row.abi), row.constructorArguments === null ? null : bytes(row.constructorArguments), row.matchType,
    row.evmVersion, row.optimization, row.optimizationRuns, row.licenseType, JSON.stringify(row.externalLibraries),
    row.verificationMethod, row.runtimeCodeHash
  ])
  // Every instance shows the contract's name and is_verified at once, not after their names expire.
  if (rows.length > 0) await announceNameChange(db, row.address)
  return rows.length > 0
}

/** A verified contract other than `except` whose deployed code, metadata aside, hashes to `runtimeCodeHash`: the oldest verified, full matches first. */
export async function findVerifiedTwin (db: Knex, runtimeCodeHash: Buffer, except: string | Buffer): Promise<VerifiedContract | null> {
  const { rows } = await db.raw(`select ${COLUMNS} from verified_contracts where runtime_code_hash = ? and address <> ?
    order by match_type = 'full' desc, id limit 1`, [runtimeCodeHash, addressBytes(except)])
  return rows[0] === undefined ? null : fromRow(rows[0])
}

export type VerifiedListItem = VerifiedContract & { id: number, transactionCount: number | null, coinBalance: string | null }

/** Verified contracts, newest first, after the cursor id; `q` finds a name (any case, part of it) or an address (0x and hex, part of it). */
export async function listVerifiedContracts (db: Knex, { q, beforeId, limit }: { q?: string, beforeId?: number, limit: number }): Promise<VerifiedListItem[]> {
  const where: string[] = []
  const bindings: Array<string | number> = []
  if (beforeId !== undefined) { where.push('id < ?'); bindings.push(beforeId) }
  // PostgreSQL text holds no NUL (it would refuse the query): such a q matches no stored name or address.
  if (q?.includes('\0') === true) return []
  const query = q?.trim() ?? ''
  if (query !== '') {
    const hex = /^(0x)?[0-9a-fA-F]+$/.test(query) ? query.replace(/^0x/, '').toLowerCase() : undefined
    where.push(`(name ilike ? escape '\\'${hex === undefined ? '' : ' or encode(address, \'hex\') like ?'})`)
    bindings.push('%' + query.replace(/[\\%_]/g, (c) => '\\' + c) + '%')
    if (hex !== undefined) bindings.push('%' + hex + '%')
  }
  const { rows } = await db.raw(`select c.*, a.transaction_count, a.coin_balance::text as coin_balance from (
      select ${COLUMNS}, id, address as address_bytes from verified_contracts
      ${where.length > 0 ? 'where ' + where.join(' and ') : ''} order by id desc limit ${Number(limit)}
    ) c left join addresses a on a.hash = c.address_bytes order by c.id desc`, bindings)
  return rows.map((row: Record<string, any>) => ({
    ...fromRow(row), id: Number(row.id), transactionCount: row.transaction_count === null ? null : Number(row.transaction_count), coinBalance: row.coin_balance
  }))
}

/** Verified contracts, and those verified in the 24 hours before `now`. */
export async function countVerifiedContracts (db: Knex, now = new Date()): Promise<{ verified: string, verified24h: string }> {
  const { rows } = await db.raw(`select count(*)::text as verified, count(*) filter (where verified_at >= ?::timestamptz - interval '24 hours')::text as verified_24h
    from verified_contracts`, [now])
  return { verified: rows[0].verified, verified24h: rows[0].verified_24h }
}
