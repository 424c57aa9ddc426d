// Store stage: a batch of decoded blocks written in one database transaction.
// Idempotent: the batch's heights are deleted first (children cascade), so a
// batch written again after a crash or a reindex leaves exactly one copy.
import type { Knex } from 'knex'
import type { BlockRow, BlockRows, CoinBalanceRow, Hex, InternalTransactionRow, LogRow, TokenRow, TokenTransferRow, TransactionRow } from './types.ts'
import { applyAggregates, removeBlocksFrom } from './aggregates.ts'

type ColumnType = 'bytea' | 'bigint' | 'integer' | 'smallint' | 'numeric' | 'text' | 'timestamptz' | 'integer[]'
type Columns<Row> = Array<[keyof Row & string, ColumnType]>

const BLOCK_COLUMNS: Columns<BlockRow> = [
  ['number', 'bigint'], ['hash', 'bytea'], ['parent_hash', 'bytea'], ['timestamp', 'timestamptz'], ['miner', 'bytea'],
  ['signer', 'bytea'], ['gas_limit', 'bigint'], ['gas_used', 'bigint'], ['base_fee_per_gas', 'numeric'], ['size', 'integer'],
  ['nonce', 'bytea'], ['difficulty', 'numeric'], ['total_difficulty', 'numeric'], ['extra_data', 'bytea'],
  ['transaction_count', 'integer'], ['internal_transaction_count', 'integer']
]
const TRANSACTION_COLUMNS: Columns<TransactionRow> = [
  ['hash', 'bytea'], ['block_number', 'bigint'], ['transaction_index', 'integer'], ['from', 'bytea'], ['to', 'bytea'],
  ['value', 'numeric'], ['gas', 'bigint'], ['gas_price', 'numeric'], ['max_fee_per_gas', 'numeric'],
  ['max_priority_fee_per_gas', 'numeric'], ['type', 'smallint'], ['nonce', 'bigint'], ['input', 'bytea'], ['status', 'smallint'],
  ['gas_used', 'bigint'], ['cumulative_gas_used', 'bigint'], ['effective_gas_price', 'numeric'], ['created_contract', 'bytea'],
  ['error', 'text'], ['revert_reason', 'bytea']
]
const LOG_COLUMNS: Columns<LogRow> = [
  ['block_number', 'bigint'], ['log_index', 'integer'], ['transaction_hash', 'bytea'], ['transaction_index', 'integer'],
  ['address', 'bytea'], ['topic0', 'bytea'], ['topic1', 'bytea'], ['topic2', 'bytea'], ['topic3', 'bytea'], ['data', 'bytea']
]
const INTERNAL_TRANSACTION_COLUMNS: Columns<InternalTransactionRow> = [
  ['block_number', 'bigint'], ['transaction_index', 'integer'], ['trace_index', 'integer'], ['transaction_hash', 'bytea'],
  ['type', 'text'], ['from', 'bytea'], ['to', 'bytea'], ['value', 'numeric'], ['gas', 'bigint'], ['gas_used', 'bigint'],
  ['input', 'bytea'], ['output', 'bytea'], ['error', 'text'], ['trace_address', 'integer[]'], ['created_contract', 'bytea']
]

const TOKEN_TRANSFER_COLUMNS: Columns<TokenTransferRow> = [
  ['block_number', 'bigint'], ['log_index', 'integer'], ['batch_index', 'integer'], ['transaction_hash', 'bytea'],
  ['transaction_index', 'integer'], ['token_address', 'bytea'], ['token_type', 'text'], ['from', 'bytea'], ['to', 'bytea'],
  ['amount', 'numeric'], ['token_id', 'numeric']
]
const COIN_BALANCE_COLUMNS: Columns<CoinBalanceRow> = [['address', 'bytea'], ['block_number', 'bigint'], ['value', 'numeric']]
const TOKEN_COLUMNS: Columns<TokenRow> = [
  ['address', 'bytea'], ['type', 'text'], ['name', 'text'], ['symbol', 'text'], ['decimals', 'smallint'], ['total_supply', 'numeric'],
  ['first_block', 'bigint'], ['updated_block', 'bigint']
]

/** How a column travels: one array parameter per column, unnested server-side (no parameter-count limit). */
const TRANSPORT: Record<ColumnType, { array: string, select: (c: string) => string, encode: (v: unknown) => unknown }> = {
  bytea: { array: 'text[]', select: (c) => `decode(substr(t.${c}, 3), 'hex')`, encode: (v) => v },
  bigint: { array: 'bigint[]', select: (c) => `t.${c}`, encode: (v) => v },
  integer: { array: 'integer[]', select: (c) => `t.${c}`, encode: (v) => v },
  smallint: { array: 'smallint[]', select: (c) => `t.${c}`, encode: (v) => v },
  numeric: { array: 'numeric[]', select: (c) => `t.${c}`, encode: (v) => v },
  text: { array: 'text[]', select: (c) => `t.${c}`, encode: (v) => v },
  timestamptz: { array: 'bigint[]', select: (c) => `to_timestamp(t.${c})`, encode: (v) => v },
  // Ragged arrays cannot be unnested as a 2-D array: each travels as an array literal.
  'integer[]': { array: 'text[]', select: (c) => `t.${c}::integer[]`, encode: (v) => `{${(v as number[]).join(',')}}` }
}

async function insertRows<Row> (trx: Knex.Transaction, table: string, columns: Columns<Row>, rows: Row[], onConflict = ''): Promise<void> {
  if (rows.length === 0) return
  const names = columns.map(([name]) => `"${name}"`).join(', ')
  const unnest = columns.map(([, type], i) => `$${i + 1}::${TRANSPORT[type].array}`).join(', ')
  const aliases = columns.map(([name]) => `"${name}"`).join(', ')
  const selects = columns.map(([name, type]) => TRANSPORT[type].select(`"${name}"`)).join(', ')
  const values = columns.map(([name, type]) => rows.map((row) => {
    const v = row[name as keyof Row]
    return v === null ? null : TRANSPORT[type].encode(v)
  }))
  const client = await trx.client.acquireConnection() as { query: (sql: string, values: unknown[]) => Promise<unknown> }
  try {
    await client.query(`insert into ${table} (${names}) select ${selects} from unnest(${unnest}) as t(${aliases}) ${onConflict}`, values)
  } finally {
    await trx.client.releaseConnection(client)
  }
}

export async function storeBlocks (db: Knex, batch: BlockRows[]): Promise<void> {
  if (batch.length === 0) return
  const from = batch[0]!.block.number
  const to = batch[batch.length - 1]!.block.number
  await db.transaction(async (trx) => {
    // Safe to lose on a crash: the index resumes from the stored head, and a
    // lost commit only means a batch fetched again. Saves a WAL flush per batch.
    await trx.raw('set local synchronous_commit = off')
    // Normally nothing is there; after a crash or a reindex the heights are written again.
    await removeBlocksFrom(trx, from)
    await insertRows(trx, 'blocks', BLOCK_COLUMNS, batch.map((b) => b.block))
    await insertRows(trx, 'transactions', TRANSACTION_COLUMNS, batch.flatMap((b) => b.transactions))
    await insertRows(trx, 'logs', LOG_COLUMNS, batch.flatMap((b) => b.logs))
    await insertRows(trx, 'internal_transactions', INTERNAL_TRANSACTION_COLUMNS, batch.flatMap((b) => b.internalTransactions))
    await insertRows(trx, 'token_transfers', TOKEN_TRANSFER_COLUMNS, batch.flatMap((b) => b.tokenTransfers))
    await insertRows(trx, 'coin_balances', COIN_BALANCE_COLUMNS, batch.flatMap((b) => b.state.coinBalances))
    await insertRows(trx, 'tokens', TOKEN_COLUMNS, batch.flatMap((b) => b.tokens), `
      on conflict (address) do update set total_supply = excluded.total_supply, updated_block = excluded.updated_block,
        name = coalesce(excluded.name, tokens.name), symbol = coalesce(excluded.symbol, tokens.symbol),
        decimals = coalesce(excluded.decimals, tokens.decimals)`)
    await applyAggregates(trx, from, to, batch.flatMap((b) => b.state.contracts))
  })
}

/** Removes every block above `number`, everything that hangs off them and their share of the running sums. */
export async function deleteBlocksAbove (db: Knex, number: number): Promise<number> {
  return await db.transaction(async (trx) => await removeBlocksFrom(trx, number + 1))
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
