// Event logs for the explorer APIs: a transaction's in log order (index
// logs_transaction), an address's newest first (index logs_address).
import type { Knex } from 'knex'
import type { Hex, LogRow } from '../../rows.ts'
import { epochColumn, hexColumn } from '../sql/columns.ts'
import { PAGE_SIZE } from '../sql/page-size.ts'
import type { QueryDb } from '../sql/query-db.ts'

/** A log as stored, with its block and what the explorer shows of its addresses. */
export type LogRecord = Omit<LogRow, 'transaction_index'> & {
  block_hash: Hex
  /** Seconds since the epoch. */
  timestamp: number
  address_is_contract: boolean
  /** The transaction's recipient: Blockscout names it the log's smart_contract. */
  transaction_to: Hex | null
  transaction_to_is_contract: boolean
}

export type LogCursor = { blockNumber: number, index: number }

const COLUMNS = `l.block_number::int as block_number, l.log_index, ${hexColumn('l.transaction_hash')} as transaction_hash, ${hexColumn('l.address')} as address,
  ${hexColumn('l.topic0')} as topic0, ${hexColumn('l.topic1')} as topic1, ${hexColumn('l.topic2')} as topic2, ${hexColumn('l.topic3')} as topic3,
  ${hexColumn('l.data')} as data, ${hexColumn('b.hash')} as block_hash, ${epochColumn('b.timestamp')} as timestamp,
  coalesce(la.contract_code is not null, false) as address_is_contract,
  ${hexColumn('t."to"')} as transaction_to, coalesce(ta.contract_code is not null, false) as transaction_to_is_contract`

const JOINS = `join blocks b on b.number = l.block_number
  join transactions t on t.hash = l.transaction_hash
  left join addresses la on la.hash = l.address
  left join addresses ta on ta.hash = t."to"`

async function select (db: QueryDb, inner: string, order: string, bindings: Knex.RawBinding[]): Promise<LogRecord[]> {
  const { rows } = await db.knex.raw(`select ${COLUMNS} from (${inner}) l ${JOINS} ${order}`, bindings)
  return rows
}

/** A transaction's logs after log index `afterIndex`: one more than a page. */
export async function listTransactionLogs (db: QueryDb, { hash, afterIndex }: { hash: Buffer, afterIndex: number }): Promise<LogRecord[]> {
  return await select(db, `select * from logs where transaction_hash = ? and log_index > ? order by log_index limit ${PAGE_SIZE + 1}`,
    'order by l.log_index', [hash, afterIndex])
}

/**
 * The logs `address` emitted, newest first; with `topic`, those carrying it
 * in any topic position (as Blockscout filters), checked while reading the
 * address's index.
 */
export async function listAddressLogs (db: QueryDb, { address, topic, cursor }: { address: Buffer, topic?: Buffer, cursor?: LogCursor }): Promise<LogRecord[]> {
  const where = ['address = ?']
  const bindings: Knex.RawBinding[] = [address]
  if (topic !== undefined) {
    where.push('(topic0 = ? or topic1 = ? or topic2 = ? or topic3 = ?)')
    bindings.push(topic, topic, topic, topic)
  }
  if (cursor !== undefined) {
    where.push('(block_number, log_index) < (?, ?)')
    bindings.push(cursor.blockNumber, cursor.index)
  }
  return await select(db, `select * from logs where ${where.join(' and ')} order by block_number desc, log_index desc limit ${PAGE_SIZE + 1}`,
    'order by l.block_number desc, l.log_index desc', bindings)
}
