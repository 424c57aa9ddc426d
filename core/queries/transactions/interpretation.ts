// What the interpreter reads of one transaction: the transaction, its token
// transfers, logs and inner calls, and the addresses and tokens they touch.
import { epochColumn, hexColumn } from '../sql/columns.ts'
import type { Hex } from '../../rows.ts'
import type { QueryDb } from '../sql/query-db.ts'
import { PAGE_SIZE } from '../sql/page-size.ts'
import type { TokenTransferRecord } from '../tokens/token-transfers.ts'
import { LISTED, type InternalTransactionRecord } from './internal-transactions.ts'

/** Transfers read for a summary: enough to count an airdrop's recipients; past this a summary counts what it read. */
export const MAX_INTERPRETED_TRANSFERS = 500

export type InterpretedTransactionRow = {
  hash: string
  block_number: number
  block_hash: string
  transaction_index: number
  from: string
  to: string | null
  created_contract: string | null
  value: string
  status: number
  error: string | null
  timestamp: number
  input: string
  to_is_contract: boolean
}

export type InterpretedAddressRow = { hash: string, is_contract: boolean, token_type: string | null, token_name: string | null, token_symbol: string | null, token_decimals: number | null, tag: string | null }

export async function findInterpretedTransaction (db: QueryDb, hash: Buffer): Promise<InterpretedTransactionRow | undefined> {
  const { rows } = await db.knex.raw(`select ${hexColumn('t.hash')} as hash, t.block_number::int as block_number, ${hexColumn('b.hash')} as block_hash, t.transaction_index,
      ${hexColumn('t."from"')} as "from", ${hexColumn('t."to"')} as "to", ${hexColumn('t.created_contract')} as created_contract,
      t.value::text, t.status, t.error, ${epochColumn('b.timestamp')} as timestamp, ${hexColumn('t.input')} as input,
      exists (select 1 from addresses a where a.hash = t."to" and a.contract_code is not null) as to_is_contract
    from transactions t join blocks b on b.number = t.block_number where t.hash = ?`, [hash])
  return rows[0]
}

/** Logs and inner calls read for a summary, as the REST pages of them hold at most (one page and one more). */
const MAX_INTERPRETED_LOGS = PAGE_SIZE + 1

export type InterpretedTransferRow = Pick<TokenTransferRecord, 'token_type' | 'amount' | 'token_id' | 'log_index' | 'name' | 'symbol' | 'decimals'> & { token_address: Hex, from: Hex, to: Hex }
export type InterpretedLogRow = { log_index: number, address: Hex, topic0: Hex | null, topic1: Hex | null, topic2: Hex | null, topic3: Hex | null, data: Hex }
export type InterpretedCallRow = Pick<InternalTransactionRecord, 'type' | 'value' | 'error' | 'trace_index'> & { from: Hex, to: Hex | null, created_contract: Hex | null }

/**
 * What a summary reads of a transaction's token transfers, logs and inner
 * calls: only the columns it uses, each a prepared statement on the
 * transaction's own rows. The REST pages' queries join each row to its
 * block, transaction and addresses for fields a summary never shows, which
 * made them most of an uncached summary's reading (bench:interpreter).
 */
export async function readTransactionParts (db: QueryDb, hash: Buffer) {
  const [transfers, logs, calls] = await Promise.all([
    db.prepared.rows<InterpretedTransferRow>(`select ${hexColumn('tt.token_address')} as token_address, tt.token_type, ${hexColumn('tt."from"')} as "from", ${hexColumn('tt."to"')} as "to", tt.amount::text as amount, tt.token_id::text as token_id,
        tt.log_index, k.name, k.symbol, k.decimals
      from token_transfers tt left join tokens k on k.address = tt.token_address
      where tt.transaction_hash = $1 order by tt.log_index, tt.batch_index limit ${MAX_INTERPRETED_TRANSFERS}`, [hash]),
    db.prepared.rows<InterpretedLogRow>(`select log_index, ${hexColumn('address')} as address, ${['topic0', 'topic1', 'topic2', 'topic3'].map((c) => `${hexColumn(c)} as ${c}`).join(', ')}, ${hexColumn('data')} as data from logs
      where transaction_hash = $1 order by log_index limit ${MAX_INTERPRETED_LOGS}`, [hash]),
    db.prepared.rows<InterpretedCallRow>(`select type, ${hexColumn('"from"')} as "from", ${hexColumn('"to"')} as "to", ${hexColumn('created_contract')} as created_contract, value::text as value, error, trace_index from internal_transactions
      where transaction_hash = $1 and ${LISTED} order by trace_index limit ${MAX_INTERPRETED_LOGS}`, [hash])
  ])
  return { transfers, logs, calls }
}

/** Whether each address has code, the token it is, if one, and its public tag. */
export async function readAddresses (db: QueryDb, addresses: readonly string[]): Promise<InterpretedAddressRow[]> {
  if (addresses.length === 0) return []
  const { rows } = await db.knex.raw(`select ${hexColumn('h.hash')} as hash, coalesce(a.contract_code is not null, false) as is_contract,
      k.type as token_type, k.name as token_name, k.symbol as token_symbol, k.decimals as token_decimals, p.name as tag
    from unnest(?::bytea[]) h(hash)
      left join addresses a on a.hash = h.hash
      left join tokens k on k.address = h.hash
      left join public_tags p on p.address = h.hash`, [addresses.map((a) => Buffer.from(a.slice(2), 'hex'))])
  return rows
}

export type AddressTransactionKey = { blockNumber: number, index: number }

/**
 * The transactions `address` sent, received or created, newest first, after
 * the cursor: one more than `limit`, to tell whether there is a next page.
 */
export async function listAddressTransactionHashes (db: QueryDb, { address, cursor, limit }: { address: Buffer, cursor?: AddressTransactionKey, limit: number }): Promise<Array<{ hash: Hex, block_number: number, transaction_index: number }>> {
  const after = cursor === undefined ? '' : 'and (block_number, transaction_index) < (?, ?)'
  const bindings = cursor === undefined ? [] : [cursor.blockNumber, cursor.index]
  const side = (column: string) => `(select hash, block_number, transaction_index from transactions
    where ${column} = ? ${after} order by block_number desc, transaction_index desc limit ${limit + 1})`
  const { rows } = await db.knex.raw(`select ${hexColumn('hash')} as hash, block_number::int as block_number, transaction_index from (
      ${side('"from"')} union ${side('"to"')} union ${side('created_contract')}
    ) t order by block_number desc, transaction_index desc limit ${limit + 1}`,
  [address, ...bindings, address, ...bindings, address, ...bindings])
  return rows
}
