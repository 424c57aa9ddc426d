// Store stage: a batch of decoded blocks written in one database transaction.
// Idempotent: the batch's heights are deleted first (children cascade), so a
// batch written again after a crash or a reindex leaves exactly one copy.
import type { Knex } from 'knex'
import type { BlockRows, CoinBalanceRow, Hex, TokenRow } from './types.ts'
import { applyAggregates, recordContracts, removeBlocksFrom } from './aggregates.ts'
import { BULK_LOAD_ROW, finishBulkLoad, readBulkLoad } from './bulk-load.ts'
import { copyRows, type ColumnType, type Columns } from './copy-rows.ts'
import { BLOCK_COLUMNS, TRANSACTION_COLUMNS, LOG_COLUMNS, INTERNAL_TRANSACTION_COLUMNS, TOKEN_TRANSFER_COLUMNS, COIN_BALANCE_COLUMNS, TOKEN_COLUMNS } from './row-columns.ts'
import { announceReorg, commitAnnouncement } from './commit-feed.ts'
import { inlineInteger, onTransactionConnection, runStatements } from '../db/statements.ts'
import { addDailyStats, takeOutDailyStats } from '../stats/daily-stats.ts'
import type { LatestBalances } from './latest-balances.ts'
import { writeFenced, type WriterFence } from './lock.ts'

/**
 * How a column of an upsert travels (plain inserts go by COPY, copy-rows.ts):
 * one array literal per column, built here and unnested server-side (no
 * parameter-count limit). Hex and digits need no quoting, so the literal is
 * joined directly instead of escaped element by element, and bytea elements arrive in PostgreSQL's own hex form (\\x...: the literal's
 * backslash escaped), with nothing to decode in SQL.
 */
const TRANSPORT: Record<ColumnType, { array: string, select: (c: string) => string, element: (v: unknown) => string }> = {
  bytea: { array: 'bytea[]', select: (c) => `t.${c}`, element: (v) => `\\\\x${(v as string).slice(2)}` },
  bigint: { array: 'bigint[]', select: (c) => `t.${c}`, element: String },
  integer: { array: 'integer[]', select: (c) => `t.${c}`, element: String },
  smallint: { array: 'smallint[]', select: (c) => `t.${c}`, element: String },
  numeric: { array: 'numeric[]', select: (c) => `t.${c}`, element: String },
  boolean: { array: 'boolean[]', select: (c) => `t.${c}`, element: (v) => v === true ? 't' : 'f' },
  text: { array: 'text[]', select: (c) => `t.${c}`, element: (v) => quote(v as string) },
  timestamptz: { array: 'bigint[]', select: (c) => `to_timestamp(t.${c})`, element: String },
  // Ragged arrays cannot be unnested as a 2-D array: each travels as an array literal.
  'integer[]': { array: 'text[]', select: (c) => `t.${c}::integer[]`, element: (v) => `"{${(v as number[]).join(',')}}"` }
}

/** An array literal element that may hold anything: quoted, with backslashes and quotes escaped. */
const quote = (text: string): string => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`

async function insertRows<Row> (trx: Knex.Transaction, table: string, columns: Columns<Row>, rows: Row[], onConflict = ''): Promise<void> {
  if (rows.length === 0) return
  const names = columns.map(([name]) => `"${name}"`).join(', ')
  const unnest = columns.map(([, type], i) => `$${i + 1}::${TRANSPORT[type].array}`).join(', ')
  const aliases = columns.map(([name]) => `"${name}"`).join(', ')
  const selects = columns.map(([name, type]) => TRANSPORT[type].select(`"${name}"`)).join(', ')
  const values = columns.map(([name, type]) => {
    const { element } = TRANSPORT[type]
    let literal = '{'
    for (let i = 0; i < rows.length; i++) {
      const v = rows[i]![name as keyof Row]
      literal += (i === 0 ? '' : ',') + (v === null ? 'NULL' : element(v))
    }
    return literal + '}'
  })
  await onTransactionConnection(trx, async (client) =>
    await client.query(`insert into ${table} (${names}) select ${selects} from unnest(${unnest}) as t(${aliases}) ${onConflict}`, values))
}

/**
 * `latest`, when given, answers for addresses it knows instead of
 * coin_balances, and learns the batch's balances once it is committed.
 */
export async function storeBlocks (db: Knex, batch: BlockRows[], latest?: LatestBalances, fence?: WriterFence): Promise<void> {
  if (batch.length === 0) return
  const from = batch[0]!.block.number
  const to = batch[batch.length - 1]!.block.number
  let coinBalances: CoinBalanceRow[] = []
  await writeFenced(db, fence, async (trx) => {
    // The fixed statements go a few to a round trip (statements.ts): under load each round trip is a wait for a CPU.
    const [, present, bulk] = await runStatements(trx, [
      // Safe to lose on a crash: the index resumes from the stored head, and a
      // lost commit only means a batch fetched again. Saves a WAL flush per batch.
      'set local synchronous_commit = off',
      `select 1 from blocks where number >= ${inlineInteger(from)} limit 1`,
      BULK_LOAD_ROW
    ])
    // Normally nothing is there; after a crash or a reindex the heights are written again.
    if (present!.rows.length > 0 && await removeFrom(trx, from) > 0) latest?.clear()
    await copyRows(trx, 'blocks', BLOCK_COLUMNS, batch.map((b) => b.block))
    await copyRows(trx, 'transactions', TRANSACTION_COLUMNS, batch.flatMap((b) => b.transactions))
    await copyRows(trx, 'logs', LOG_COLUMNS, batch.flatMap((b) => b.logs))
    await copyRows(trx, 'internal_transactions', INTERNAL_TRANSACTION_COLUMNS, batch.flatMap((b) => b.internalTransactions))
    await copyRows(trx, 'token_transfers', TOKEN_TRANSFER_COLUMNS, batch.flatMap((b) => b.tokenTransfers))
    const balances = await coinBalanceRows(trx, batch, latest)
    coinBalances = balances.rows
    await copyRows(trx, 'coin_balances', COIN_BALANCE_COLUMNS, coinBalances)
    await insertRows(trx, 'tokens', TOKEN_COLUMNS, latestTokens(batch), `
      on conflict (address) do update set total_supply = excluded.total_supply, updated_block = excluded.updated_block,
        name = coalesce(excluded.name, tokens.name), symbol = coalesce(excluded.symbol, tokens.symbol),
        decimals = coalesce(excluded.decimals, tokens.decimals)`)
    const contracts = batch.flatMap((b) => b.state.contracts)
    // During a bulk load the running sums wait for its end (bulk-load.ts); a removal above may have finished one.
    const bulkOpen = bulk!.rows.length > 0 && (present!.rows.length === 0 || await readBulkLoad(trx) !== undefined)
    if (!bulkOpen) await applyAggregates(trx, from, to, contracts)
    else await recordContracts(trx, contracts)
    // The Stats API's daily sums, in the same transaction: never a block counted twice or lost.
    await addDailyStats(trx, from, to, balances.before)
  }, [commitAnnouncement(from, to)])
  latest?.record(coinBalances)
}

/**
 * Each block's coin balance rows: those read from the node, and for the
 * addresses it shows without changing their balance (state.ts) the value of
 * the address's row before, in this batch or stored. No row before: the
 * address never held coins, as every way to get them gives it a read row.
 * Also the balances known to have been stored before the batch (`latest`'s
 * and those looked up here), which the daily sums need and need not look up again.
 */
async function coinBalanceRows (trx: Knex.Transaction, batch: BlockRows[], latest: LatestBalances | undefined): Promise<{ rows: CoinBalanceRow[], before: Map<Hex, string> }> {
  const rows: CoinBalanceRow[] = []
  const last = new Map<Hex, string>()
  const stored = await readLatestBalances(trx, batch, latest)
  for (const { block, state } of batch) {
    for (const row of state.coinBalances) {
      rows.push(row)
      last.set(row.address, row.value)
    }
    for (const address of state.unchangedBalances ?? []) {
      const value = last.get(address) ?? stored.get(address) ?? '0'
      rows.push({ address, block_number: block.number, value })
      last.set(address, value)
    }
  }
  if (latest !== undefined) {
    for (const address of last.keys()) {
      const value = stored.has(address) ? undefined : latest.get(address)
      if (value !== undefined) stored.set(address, value)
    }
  }
  return { rows, before: stored }
}

/** The stored balance of each address the batch carries forward without reading it first: known to `latest`, or looked up. */
async function readLatestBalances (trx: Knex.Transaction, batch: BlockRows[], latest: LatestBalances | undefined): Promise<Map<Hex, string>> {
  const read = new Set<Hex>()
  const known = new Map<Hex, string>()
  const wanted = new Set<Hex>()
  for (const { state } of batch) {
    for (const row of state.coinBalances) read.add(row.address)
    for (const address of state.unchangedBalances ?? []) {
      if (read.has(address) || known.has(address)) continue
      const value = latest?.get(address)
      if (value === undefined) wanted.add(address)
      else known.set(address, value)
    }
  }
  if (wanted.size === 0) return known
  // One index probe per address (the primary key, address first): the batch's own blocks are not stored yet.
  const { rows } = await trx.raw(`
    select a.address, (select p.value from coin_balances p where p.address = a.address order by p.block_number desc limit 1) as value
    from unnest(?::bytea[]) as a(address)`, [`{${[...wanted].map(TRANSPORT.bytea.element).join(',')}}`])
  for (const r of rows as Array<{ address: Buffer, value: string | null }>) if (r.value !== null) known.set(toHex(r.address), r.value)
  return known
}

/**
 * Each token once, as last seen: batches stored together may each carry it
 * (first_block from the first). One insert cannot update a row twice.
 */
function latestTokens (batch: BlockRows[]): TokenRow[] {
  const tokens = new Map<Hex, TokenRow>()
  for (const token of batch.flatMap((b) => b.tokens)) {
    const seen = tokens.get(token.address)
    tokens.set(token.address, seen === undefined ? token : { ...token, first_block: seen.first_block })
  }
  return [...tokens.values()]
}

/**
 * Deletes blocks from `from` up. A bulk load under way is finished first:
 * its blocks must be in the running sums before their share is taken out.
 */
async function removeFrom (trx: Knex.Transaction, from: number): Promise<number> {
  const present = await trx('blocks').where('number', '>=', from).first('number')
  if (present === undefined) return 0
  await finishBulkLoad(trx)
  await takeOutDailyStats(trx, from)
  return await removeBlocksFrom(trx, from)
}

/**
 * Removes every block above `number`, everything that hangs off them and their
 * share of the running sums; the other instances hear of it at the commit.
 */
export async function deleteBlocksAbove (db: Knex, number: number, fence?: WriterFence): Promise<number> {
  return await writeFenced(db, fence, async (trx) => {
    const removed = await removeFrom(trx, number + 1)
    if (removed > 0) await announceReorg(trx, number, removed)
    return removed
  })
}

/** The highest indexed block, or undefined on an empty database. */
export async function readIndexedHead (db: Knex): Promise<{ number: number, hash: Hex } | undefined> {
  const row = await db('blocks').orderBy('number', 'desc').first('number', 'hash')
  return row === undefined ? undefined : { number: Number(row.number), hash: toHex(row.hash) }
}

export async function readIndexedHashes (db: Knex, from: number, to: number): Promise<Map<number, Hex>> {
  const rows = await db('blocks').whereBetween('number', [from, to]).select('number', 'hash')
  return new Map(rows.map((r) => [Number(r.number), toHex(r.hash)]))
}

export function toHex (bytes: Buffer): Hex {
  return `0x${bytes.toString('hex')}`
}
