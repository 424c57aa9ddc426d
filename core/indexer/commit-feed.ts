// The indexer's commits, told to the other gateway instances on the database.
// Only the writer sees its batches in memory; a reader would otherwise never
// hear of a new block, and its GraphQL subscribers would wait forever. The
// writer sends a NOTIFY inside each store transaction: PostgreSQL delivers it
// at commit, in commit order, and never for a transaction rolled back. A
// reader LISTENs and reads the committed rows back in the shapes the writer
// emits (decode.ts), so a subscriber cannot tell which instance it is on.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import { listenOnChannel, type ChannelListener } from '../db/listen.ts'
import { epochColumn, hexColumn } from '../queries/columns.ts'
import { BLOCK_COLUMNS, TOKEN_TRANSFER_COLUMNS, TRANSACTION_COLUMNS } from './row-columns.ts'
import type { ColumnType, Columns } from './copy-rows.ts'
import type { CommittedBlock } from './types.ts'

const CHANNEL = 'tg_indexer_committed'
/** bigint columns the row types carry as numbers (heights); every other bigint is a decimal string. */
const HEIGHT_COLUMNS = new Set(['number', 'block_number'])

/** Announces blocks from..to, in the caller's store transaction: heard at its commit. */
export async function announceCommit (trx: Knex.Transaction, from: number, to: number): Promise<void> {
  await trx.raw('select pg_notify(?, ?)', [CHANNEL, `${from} ${to}`])
}

export type CommitListener = ChannelListener

/**
 * Calls `onCommit(from, to)` for every batch a writer commits, in commit order,
 * from a connection of its own. A failed connection is logged and ends the
 * listener (`onEnd`): the caller listens again.
 */
export async function listenForCommits (databaseUrl: string, log: Logger, onCommit: (from: number, to: number) => void, onEnd: () => void): Promise<CommitListener> {
  return await listenOnChannel({
    databaseUrl,
    channel: CHANNEL,
    log,
    what: 'the writer\'s commits',
    onPayload: (payload) => {
      const [from, to] = payload.split(' ').map(Number)
      if (Number.isSafeInteger(from) && Number.isSafeInteger(to)) onCommit(from!, to!)
    },
    onEnd
  })
}

/**
 * The first block to read back for a commit notice of from..to, after the last
 * one heard: the blocks in between too when a notice was missed (the
 * connection dropped), unless that gap is longer than `maxGap`.
 */
export function readBackFrom (heardThrough: number | undefined, from: number, maxGap: number): number {
  return heardThrough !== undefined && heardThrough + 1 < from && from - heardThrough <= maxGap ? heardThrough + 1 : from
}

/** A column as the row types hold it: hex for bytes, numbers for heights and seconds, decimal strings for big numbers. */
function selectAs (name: string, type: ColumnType): string {
  const column = `"${name}"`
  switch (type) {
    case 'bytea': return `${hexColumn(column)} as ${column}`
    case 'timestamptz': return `${epochColumn(column)} as ${column}`
    case 'bigint': return HEIGHT_COLUMNS.has(name) ? `${column}::float8 as ${column}` : `${column}::text as ${column}`
    case 'numeric': return `${column}::text as ${column}`
    default: return column
  }
}

async function readRows<Row> (db: Knex | Knex.Transaction, table: string, columns: Columns<Row>, height: string, order: string, from: number, to: number): Promise<Row[]> {
  const { rows } = await db.raw<{ rows: Row[] }>(
    `select ${columns.map(([name, type]) => selectAs(name, type)).join(', ')} from ${table} where ${height} between ? and ? order by ${order}`,
    [from, to])
  return rows
}

/** Blocks from..to as stored (none where a reorg has since removed them), each with its transactions and token transfers. */
export async function readCommittedBlocks (db: Knex, from: number, to: number): Promise<CommittedBlock[]> {
  // One snapshot: a reorg committed between the reads cannot pair a block with another branch's rows.
  const [blocks, transactions, tokenTransfers] = await db.transaction(async (trx) => [
    await readRows(trx, 'blocks', BLOCK_COLUMNS, 'number', 'number', from, to),
    await readRows(trx, 'transactions', TRANSACTION_COLUMNS, 'block_number', 'block_number, transaction_index', from, to),
    await readRows(trx, 'token_transfers', TOKEN_TRANSFER_COLUMNS, 'block_number', 'block_number, log_index, batch_index', from, to)
  ] as const, { isolationLevel: 'repeatable read', readOnly: true })
  const byNumber = new Map<number, CommittedBlock>(blocks.map((block) => [block.number, { block, transactions: [], tokenTransfers: [] }]))
  for (const transaction of transactions) byNumber.get(transaction.block_number)?.transactions.push(transaction)
  for (const transfer of tokenTransfers) byNumber.get(transfer.block_number)?.tokenTransfers.push(transfer)
  return [...byNumber.values()]
}
