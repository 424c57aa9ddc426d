// Rows by key for the GraphQL loaders: one statement per batch of keys. Rows
// come back in the indexer's row shapes (core/rows.ts: 0x-hex strings, decimal strings), so
// rows read here and rows the indexer announces after a commit present alike.
import type { AddressRow, Hex, InternalTransactionRow, TokenRow, TokenTransferRow, TransactionRow } from '../../rows.ts'
import { BLOCK_COLUMNS, hexColumn, type BlockColumnsRow } from '../sql/columns.ts'
import type { QueryDb } from '../sql/query-db.ts'

/** Parent keys as a relation `p(key, bytes)`: 0x-hex text in, bytea to join on. */
export const HEX_KEYS = 'unnest(?::text[]) with ordinality p0(key, ord) cross join lateral (select decode(substr(p0.key, 3), \'hex\') as bytes) pb'

/** A transaction with its block's hash, which a GraphQL transaction shows. */
export type GraphqlTransaction = TransactionRow & { block_hash: Hex }

/** A token with its holder count, which a GraphQL token shows. */
export type GraphqlToken = Omit<TokenRow, 'first_block' | 'updated_block'> & { holder_count: number }

/**
 * An address `a`, as AddressRow; `prefix` before each name keeps them apart
 * from another table's columns. With `when`, each column is null on rows
 * where that SQL predicate is false.
 */
export function addressColumns (prefix = '', when?: string): string {
  const only = (expression: string): string => when === undefined ? expression : `case when ${when} then ${expression} end`
  return [
    [hexColumn('a.hash'), 'hash'], ['a.coin_balance::text', 'coin_balance'], ['a.balance_block::int', 'balance_block'],
    ['a.nonce::int', 'nonce'], ['a.gas_used::text', 'gas_used'], ['a.transaction_count::text', 'transaction_count'],
    ['a.token_transfer_count::text', 'token_transfer_count']
  ].map(([expression, name]) => `${only(expression!)} as ${prefix}${name}`).join(', ')
}

/**
 * A transaction `t`'s columns in the groups a GraphQL selection asks for
 * (plugins/graphql/transaction-selection.ts). `core` is always read: the key,
 * the parties, value, gas and status, what a list of transactions shows. The
 * others cost a list real work and are read only when a field needs them: the
 * input's hex, the block join for its hash, and the decimal text of five more
 * numbers. A page of 50 of a busy address's transactions read without them
 * answered a quarter more requests a second (bench:graphql).
 */
export const TRANSACTION_COLUMN_GROUPS = {
  core: `${hexColumn('t.hash')} as hash, t.block_number::int as block_number, t.transaction_index,
    ${hexColumn('t."from"')} as "from", ${hexColumn('t."to"')} as "to", ${hexColumn('t.created_contract')} as created_contract,
    t.value::text as value, t.gas::text as gas, t.gas_used::text as gas_used, t.effective_gas_price::text as effective_gas_price,
    t.status, t.nonce::text as nonce`,
  input: `${hexColumn('t.input')} as input`,
  /** Needs the transaction's block joined as `b`. */
  block: `${hexColumn('b.hash')} as block_hash`,
  fees: `t.gas_price::text as gas_price, t.max_fee_per_gas::text as max_fee_per_gas,
    t.max_priority_fee_per_gas::text as max_priority_fee_per_gas, t.type, t.cumulative_gas_used::text as cumulative_gas_used`,
  failure: `t.error, ${hexColumn('t.revert_reason')} as revert_reason`,
  flags: 't.has_token_transfers'
}

export type TransactionColumnGroup = Exclude<keyof typeof TRANSACTION_COLUMN_GROUPS, 'core'>

export const ALL_TRANSACTION_COLUMN_GROUPS: readonly TransactionColumnGroup[] = ['input', 'block', 'fees', 'failure', 'flags']

/** The select list of `core` and `groups`, always in the same order (one prepared statement per set). */
export function transactionColumns (groups: readonly TransactionColumnGroup[]): string {
  return ['core' as const, ...ALL_TRANSACTION_COLUMN_GROUPS.filter((g) => groups.includes(g))]
    .map((g) => TRANSACTION_COLUMN_GROUPS[g]).join(',\n    ')
}

/** A transaction `t` with its block `b` joined: every column. */
export const TRANSACTION_COLUMNS = transactionColumns(ALL_TRANSACTION_COLUMN_GROUPS)

export const TOKEN_TRANSFER_COLUMNS = `block_number::int as block_number, log_index, batch_index, ${hexColumn('transaction_hash')} as transaction_hash,
  transaction_index, ${hexColumn('token_address')} as token_address, token_type, ${hexColumn('"from"')} as "from", ${hexColumn('"to"')} as "to",
  amount::text as amount, token_id::text as token_id`

export const INTERNAL_TRANSACTION_COLUMNS = `block_number::int as block_number, transaction_index, trace_index,
  ${hexColumn('transaction_hash')} as transaction_hash, type, ${hexColumn('"from"')} as "from", ${hexColumn('"to"')} as "to",
  value::text as value, gas::text as gas, gas_used::text as gas_used, ${hexColumn('input')} as input, ${hexColumn('output')} as output,
  error, trace_address, ${hexColumn('created_contract')} as created_contract`

const keys = (hexes: readonly string[]): string[] => hexes.map((h) => h.toLowerCase())

function inOrder<T> (wanted: readonly string[], rows: T[], keyOf: (row: T) => string): Array<T | undefined> {
  const byKey = new Map(rows.map((r) => [keyOf(r), r]))
  return wanted.map((k) => byKey.get(k.toLowerCase()))
}

export async function findBlocksByNumber (db: QueryDb, numbers: readonly number[]): Promise<Array<BlockColumnsRow | undefined>> {
  const rows = await db.prepared.raw(`select ${BLOCK_COLUMNS} from blocks b where b.number = any(?::bigint[])`, [[...numbers]])
  const byNumber = new Map((rows as BlockColumnsRow[]).map((r) => [r.number, r]))
  return numbers.map((n) => byNumber.get(n))
}

export async function findTransactionsByHash (db: QueryDb, hashes: readonly string[]): Promise<Array<GraphqlTransaction | undefined>> {
  const rows = await db.prepared.raw(`select ${TRANSACTION_COLUMNS} from ${HEX_KEYS}
    join transactions t on t.hash = pb.bytes join blocks b on b.number = t.block_number`, [keys(hashes)])
  return inOrder(hashes, rows as GraphqlTransaction[], (r) => r.hash)
}

export async function findAddressesByHash (db: QueryDb, hashes: readonly string[]): Promise<Array<AddressRow | undefined>> {
  const rows = await db.prepared.raw(`select ${addressColumns()} from ${HEX_KEYS} join addresses a on a.hash = pb.bytes`, [keys(hashes)])
  return inOrder(hashes, rows as AddressRow[], (r) => r.hash)
}

/** Each address's contract code (null for none or an unknown address). */
export async function findContractCodes (db: QueryDb, hashes: readonly string[]): Promise<Array<Hex | null>> {
  const rows = await db.prepared.raw(`select ${hexColumn('a.hash')} as hash, ${hexColumn('a.contract_code')} as code
    from ${HEX_KEYS} join addresses a on a.hash = pb.bytes`, [keys(hashes)])
  return inOrder(hashes, rows as Array<{ hash: string, code: Hex | null }>, (r) => r.hash).map((r) => r?.code ?? null)
}

export async function findTokensByAddress (db: QueryDb, addresses: readonly string[]): Promise<Array<GraphqlToken | undefined>> {
  const rows = await db.prepared.raw(`select ${hexColumn('k.address')} as address, k.type, k.name, k.symbol, k.decimals,
      k.total_supply::text as total_supply, k.holder_count
    from ${HEX_KEYS} join tokens k on k.address = pb.bytes`, [keys(addresses)])
  return inOrder(addresses, rows as GraphqlToken[], (r) => r.address)
}

/** Whether any call below a transaction's own failed (Blockscout's has_error_in_internal_transactions). */
export async function findInternalErrors (db: QueryDb, hashes: readonly string[]): Promise<boolean[]> {
  const rows = await db.prepared.raw(`select p0.key, exists (select 1 from internal_transactions i
      where i.transaction_hash = pb.bytes and i.trace_index > 0 and i.error is not null) as failed
    from ${HEX_KEYS}`, [keys(hashes)])
  const byKey = new Map((rows as Array<{ key: string, failed: boolean }>).map((r) => [r.key, r.failed]))
  return hashes.map((h) => byKey.get(h.toLowerCase()) ?? false)
}

/** One call of a transaction by its depth-first index, for Relay's node(id). */
export async function findInternalTransaction (db: QueryDb, { hash, index }: { hash: string, index: number }): Promise<InternalTransactionRow | undefined> {
  const { rows } = await db.knex.raw(`select ${INTERNAL_TRANSACTION_COLUMNS} from internal_transactions
    where transaction_hash = decode(?, 'hex') and trace_index = ?`, [hash.slice(2).toLowerCase(), index])
  return rows[0]
}

/** One token transfer by its log (and position in an ERC-1155 batch), for Relay's node(id). */
export async function findTokenTransfer (db: QueryDb, { hash, logIndex, batchIndex }: { hash: string, logIndex: number, batchIndex: number }): Promise<TokenTransferRow | undefined> {
  const { rows } = await db.knex.raw(`select ${TOKEN_TRANSFER_COLUMNS} from token_transfers
    where transaction_hash = decode(?, 'hex') and log_index = ? and batch_index = ?`, [hash.slice(2).toLowerCase(), logIndex, batchIndex])
  return rows[0]
}
