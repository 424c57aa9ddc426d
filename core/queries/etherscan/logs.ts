// The Etherscan-style getLogs read: logs in a block range, of an address
// and/or matching topics, oldest first. With an address its index
// (logs_address) is read over the range and the topics checked along the
// way; without one the range is read in block order (the primary key) and
// each log checked, which costs what the range holds: the chain has no topic
// index, so a topic-only query is bounded by its block range, not by the chain.
import type { Knex } from 'knex'
import { hexColumn } from '../sql/columns.ts'
import { readMergedPage, type PageWindow } from './page.ts'
import type { QueryDb } from '../sql/query-db.ts'

/** A topic condition: position and value, joined to the one before by `and` or `or`. */
export type TopicFilter = { position: 0 | 1 | 2 | 3, value: Buffer, join: 'and' | 'or' }

export type LogSelection = { address?: Buffer, topics: TopicFilter[], from: number, to: number }

/** Numbers are decimal text here: the action writes them in Etherscan's hex. */
export type EtherscanLogRow = {
  address: string
  topics: string[]
  data: string
  blockNumber: string
  blockHash: string
  timeStamp: string
  gasPrice: string
  gasUsed: string
  logIndex: string
  transactionHash: string
  transactionIndex: string
}

const FIELDS = `${hexColumn('l.address')} as address,
  array_remove(array[${[0, 1, 2, 3].map((i) => hexColumn(`l.topic${i}`)).join(', ')}], null) as topics,
  ${hexColumn('l.data')} as data, l.block_number::text as "blockNumber", ${hexColumn('b.hash')} as "blockHash",
  extract(epoch from b.timestamp)::bigint::text as "timeStamp", t.effective_gas_price::text as "gasPrice", t.gas_used::text as "gasUsed",
  l.log_index::text as "logIndex", ${hexColumn('l.transaction_hash')} as "transactionHash", l.transaction_index::text as "transactionIndex"`

const JOINS = `join blocks b on b.number = l.block_number
  join transactions t on t.hash = l.transaction_hash`

/** The topics folded left to right: ((t0 op t1) op t2)... */
function topicCondition (topics: TopicFilter[]): { sql: string, bindings: Buffer[] } {
  let sql = ''
  for (const [i, topic] of topics.entries()) {
    const test = `topic${topic.position} = ?`
    sql = i === 0 ? test : `(${sql} ${topic.join} ${test})`
  }
  return { sql, bindings: topics.map((t) => t.value) }
}

export async function listEtherscanLogs (db: QueryDb, { selection, window }: { selection: LogSelection, window: PageWindow }): Promise<EtherscanLogRow[]> {
  const where = ['block_number between ? and ?']
  const bindings: Knex.RawBinding[] = [selection.from, selection.to]
  if (selection.address !== undefined) {
    where.unshift('address = ?')
    bindings.unshift(selection.address)
  }
  if (selection.topics.length > 0) {
    const topics = topicCondition(selection.topics)
    where.push(topics.sql)
    bindings.push(...topics.bindings)
  }
  return await readMergedPage<EtherscanLogRow>(db, {
    table: 'logs',
    sides: [{ where: where.join(' and '), bindings }],
    keys: ['block_number', 'log_index'],
    window
  }, 'l', FIELDS, JOINS)
}
