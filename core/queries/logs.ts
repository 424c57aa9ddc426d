// Event logs for the explorer APIs: a transaction's in log order (index
// logs_transaction), an address's newest first (index logs_address).
import type { Knex } from 'knex'
import { PAGE_SIZE } from './page-size.ts'
import type { QueryDb } from './query-db.ts'

export type LogRecord = {
  block_number: number
  log_index: number
  transaction_hash: Buffer
  address: Buffer
  topic0: Buffer | null
  topic1: Buffer | null
  topic2: Buffer | null
  topic3: Buffer | null
  data: Buffer
  block_hash: Buffer
  timestamp: Date
  address_is_contract: boolean
  /** The transaction's recipient: Blockscout names it the log's smart_contract. */
  transaction_to: Buffer | null
  transaction_to_is_contract: boolean
}

export type LogCursor = { blockNumber: number, index: number }

const COLUMNS = `l.block_number, l.log_index, l.transaction_hash, l.address, l.topic0, l.topic1, l.topic2, l.topic3, l.data,
  b.hash as block_hash, b.timestamp, coalesce(la.contract_code is not null, false) as address_is_contract,
  t."to" as transaction_to, coalesce(ta.contract_code is not null, false) as transaction_to_is_contract`

const JOINS = `join blocks b on b.number = l.block_number
  join transactions t on t.hash = l.transaction_hash
  left join addresses la on la.hash = l.address
  left join addresses ta on ta.hash = t."to"`

async function select (db: QueryDb, inner: string, order: string, bindings: Knex.RawBinding[]): Promise<LogRecord[]> {
  const { rows } = await db.knex.raw(`select ${COLUMNS} from (${inner}) l ${JOINS} ${order}`, bindings)
  return rows.map((r: LogRecord) => ({ ...r, block_number: Number(r.block_number) }))
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
