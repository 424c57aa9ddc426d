// The indexer's commits, told to the other gateway instances on the database.
// Only the writer sees its batches in memory; a reader would otherwise never
// hear of a new block, and its GraphQL subscribers would wait forever. The
// writer sends a NOTIFY inside each store transaction (and each rollback of a
// reorg): PostgreSQL delivers it at commit, in commit order, and never for a
// transaction rolled back. A reader LISTENs and reads the committed rows back
// in the shapes the writer publishes (events.ts), so a subscriber cannot tell
// which instance it is on.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import { listenOnChannel, type ChannelListener } from '../db/listen.ts'
import { inlineInteger, quoteLiteral } from '../db/statements.ts'
import { epochColumn, hexColumn } from '../queries/sql/columns.ts'
import { BLOCK_COLUMNS, TOKEN_TRANSFER_COLUMNS, TRANSACTION_COLUMNS } from './row-columns.ts'
import type { ColumnType, Columns } from './copy-rows.ts'
import type { CommittedBlock } from './types.ts'

const CHANNEL = 'tg_indexer_committed'
/** A rollback's notice starts with it; a commit's is two numbers. */
const REORG_PREFIX = 'reorg'
/** bigint columns the row types carry as numbers (heights); every other bigint is a decimal string. */
const HEIGHT_COLUMNS = new Set(['number', 'block_number'])

/** The statement that announces blocks from..to, for the caller's store transaction (statements.ts): heard at its commit. */
export function commitAnnouncement (from: number, to: number): string {
  return `select pg_notify(${quoteLiteral(CHANNEL)}, ${quoteLiteral(`${inlineInteger(from)} ${inlineInteger(to)}`)})`
}

/** Announces a rollback to `ancestor` that removed `removed` blocks, in the caller's transaction. */
export async function announceReorg (trx: Knex.Transaction, ancestor: number, removed: number): Promise<void> {
  await trx.raw('select pg_notify(?, ?)', [CHANNEL, `${REORG_PREFIX} ${ancestor} ${removed}`])
}

export type CommitListener = ChannelListener

export type CommitHandlers = {
  onCommit: (from: number, to: number) => void
  onReorg: (ancestor: number, removed: number) => void
  /** The connection failed (logged): the caller listens again. */
  onEnd: () => void
}

/** Calls the handlers for every commit and rollback of a writer, in commit order, from a connection of its own. */
export async function listenForCommits (databaseUrl: string, log: Logger, handlers: CommitHandlers): Promise<CommitListener> {
  return await listenOnChannel({
    databaseUrl,
    channel: CHANNEL,
    log,
    what: 'the writer\'s commits',
    onPayload: (payload) => readNotice(payload, handlers),
    onEnd: handlers.onEnd
  })
}

/** A notice is "from to" or "reorg ancestor removed"; anything else (a later version's) is ignored. */
export function readNotice (payload: string, handlers: Pick<CommitHandlers, 'onCommit' | 'onReorg'>): void {
  const words = payload.split(' ')
  const isReorg = words[0] === REORG_PREFIX
  const [a, b] = (isReorg ? words.slice(1) : words).map(Number)
  if (words.length !== (isReorg ? 3 : 2) || !Number.isSafeInteger(a) || !Number.isSafeInteger(b)) return
  if (isReorg) handlers.onReorg(a!, b!)
  else handlers.onCommit(a!, b!)
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
