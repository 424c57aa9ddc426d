// Smart contracts as the index knows them before any verification: the
// deployed code, the code that created it (the creating transaction's input,
// or the create frame's input for a contract made by another contract), and
// counts of contracts for the counters.
import type { Hex } from '../../rows.ts'
import { hexColumn } from '../sql/columns.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type ContractRecord = { code: Hex, creation_code: Hex | null }

/** The code that created contract `a`: its creating transaction's input, or the create frame's that made it. */
const CREATION_CODE = `coalesce(
  (select t.input from transactions t where t.hash = a.creation_transaction and t.created_contract = a.hash),
  (select i.input from internal_transactions i where i.created_contract = a.hash
    and i.transaction_hash = a.creation_transaction order by i.trace_index limit 1)
)`

export async function findContract (db: QueryDb, address: Buffer): Promise<ContractRecord | undefined> {
  const { rows } = await db.knex.raw(`
    select ${hexColumn('a.contract_code')} as code, ${hexColumn(CREATION_CODE)} as creation_code
    from addresses a where a.hash = ? and a.contract_code is not null`, [address])
  return rows[0]
}

export type ContractCounts = { contracts: string, new_contracts_24h: string }

/** All contracts, and those created in the 24 hours before `nowMs` (epoch milliseconds; index-only scans of addresses_contracts_by_creation). */
export async function countContracts (db: QueryDb, nowMs = Date.now()): Promise<ContractCounts> {
  const { rows } = await db.knex.raw(`select
    (select count(*) from addresses where contract_code is not null)::text as contracts,
    (select count(*) from addresses where contract_code is not null and creation_block >= coalesce(
      (select number from blocks where timestamp >= to_timestamp(?::float8 / 1000) - interval '24 hours' order by timestamp limit 1),
      9223372036854775807))::text as new_contracts_24h`, [nowMs])
  return rows[0]
}

export type ContractCreation = { address: string, creator: string | null, transaction: string | null, block: number | null, timestamp: number | null }

/** Who created each of `addresses` (0x-hex) and in which transaction; contracts only, in the order asked. */
export async function findContractCreations (db: QueryDb, addresses: string[]): Promise<ContractCreation[]> {
  const { rows } = await db.knex.raw(`
    select '0x' || encode(a.hash, 'hex') as address, '0x' || encode(a.creator, 'hex') as creator,
      '0x' || encode(a.creation_transaction, 'hex') as transaction, a.creation_block as block,
      (select extract(epoch from b.timestamp)::bigint from blocks b where b.number = a.creation_block) as timestamp
    from addresses a where a.hash = any(?) and a.contract_code is not null`, [addresses.map((a) => Buffer.from(a.slice(2), 'hex'))])
  const byAddress = new Map<string, ContractCreation>(rows.map((r: Record<string, any>) =>
    [r.address, { ...r, block: r.block === null ? null : Number(r.block), timestamp: r.timestamp === null ? null : Number(r.timestamp) }]))
  return addresses.map((a) => byAddress.get(a.toLowerCase())).filter((c): c is ContractCreation => c !== undefined)
}
