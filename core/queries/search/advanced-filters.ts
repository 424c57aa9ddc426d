// Blockscout's advanced filter: transactions, internal transactions and token
// transfers in one list, newest first. Within a transaction the transaction
// comes first, then its token transfers, then its internal transactions, each
// newest first (Blockscout's order: the index columns sort descending with
// nulls first). Every source is read in the order of one of its indexes,
// from the cursor on and at most a page, once per "side" (a value an index
// leads with: an address, a token, a token type, a method); the sides are
// merged, and only the page's rows are joined to their blocks, transactions
// and tokens. A deep page therefore reads what the first does.
import type { Knex } from 'knex'
import { TOKEN_TYPES, type TokenType } from '../../rows.ts'
import { PAGE_SIZE } from '../sql/page-size.ts'
import { epochColumn, hexColumn } from '../sql/columns.ts'
import type { QueryDb } from '../sql/query-db.ts'
import type { TokenRecord } from '../tokens/tokens.ts'

export const ITEM_KINDS = ['coin_transfer', 'contract_interaction', 'contract_creation'] as const
export type ItemKind = typeof ITEM_KINDS[number]

export type AdvancedFilter = {
  /** Kinds of transactions and internal transactions wanted; none: no such items. */
  kinds: readonly ItemKind[]
  /** Token types of the transfers wanted; none: no transfers. */
  tokenTypes: readonly TokenType[]
  /** 4-byte selectors of the items' transaction. */
  methods?: Buffer[]
  /** Block range the age bounds came to (resolveAge). */
  blocks?: { from: number, to: number }
  fromInclude?: Buffer[]
  fromExclude?: Buffer[]
  toInclude?: Buffer[]
  toExclude?: Buffer[]
  relation: 'or' | 'and'
  /** Inclusive bounds on the value moved (wei, or the token's base units). */
  amountFrom?: string
  amountTo?: string
  tokensInclude?: Buffer[]
  tokensExclude?: Buffer[]
}

/** Where the previous page ended: its last item's keys; sub-indexes null where that item had none. */
export type AdvancedFilterCursor = {
  blockNumber: number
  transactionIndex: number
  internalIndex: number | null
  transferIndex: number | null
  batchIndex: number | null
}

export type AdvancedFilterRow = {
  kind: 0 | 1 | 2
  block_number: string
  transaction_index: number
  sub_index: number
  batch_index: number
  hash: string
  from: string
  to: string | null
  created_contract: string | null
  value: string | null
  item_type: string
  timestamp: number
  status: number
  error: string | null
  method_id: string | null
  fee: string
  from_is_contract: boolean
  to_is_contract: boolean
  in_batch: boolean
  token_address: string | null
  token_type: string | null
  amount: string | null
  token_id: string | null
  name: string | null
  symbol: string | null
  decimals: number | null
  total_supply: string | null
  holder_count: number | null
}

const TRANSACTION = 0
const TRANSFER = 1
const INTERNAL = 2
const LIMIT = PAGE_SIZE + 1
const TRANSFER_BATCH_TOPIC = Buffer.from('4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb', 'hex')

const isContract = (column: string) => `exists (select 1 from addresses a where a.hash = ${column} and a.contract_code is not null)`
/** An item's kind: a creation, a call with data to code, or else a coin transfer (as the transaction lists' types). */
const kindOf = (x: string, creates: string) => `(case when ${creates} then 'contract_creation'
  when octet_length(${x}.input) > 0 and ${isContract(`${x}."to"`)} then 'contract_interaction' else 'coin_transfer' end)`
/** The selector expression transactions_method (migration 2026_11_26_0) indexes. */
export const METHOD_ID = (t: string) => `substring(${t}.input from 1 for 4)`
// Internal transactions' indexes are partial on Blockscout's listed frames
// (migration 3); the top-level frame is the transaction itself, never an item.
const LISTED = '(x.trace_index > 0 or x.type <> \'call\') and x.trace_index > 0'

type Part = { sql: string, bindings: Knex.RawBinding[] }
type Source = {
  kind: number
  table: string
  columns: string
  order: string
  where: Part[]
  sides: Part[]
}

const part = (sql: string, ...bindings: Knex.RawBinding[]): Part => ({ sql, bindings })
const any = (values: Buffer[]) => values as unknown as Knex.RawBinding

/** The conditions every source shares: addresses, amounts, blocks, the transaction's method. */
function sharedConditions (f: AdvancedFilter, amount: string, methodOf: string): Part[] {
  const parts: Part[] = []
  const from = f.fromInclude === undefined ? undefined : part('x."from" = any(?::bytea[])', any(f.fromInclude))
  const to = f.toInclude === undefined ? undefined : part('x."to" = any(?::bytea[])', any(f.toInclude))
  if (from !== undefined && to !== undefined) {
    parts.push(part(`(${from.sql} ${f.relation} ${to.sql})`, ...from.bindings, ...to.bindings))
  } else if (from !== undefined || to !== undefined) parts.push((from ?? to)!)
  if (f.fromExclude !== undefined) parts.push(part('x."from" <> all(?::bytea[])', any(f.fromExclude)))
  if (f.toExclude !== undefined) parts.push(part('(x."to" is null or x."to" <> all(?::bytea[]))', any(f.toExclude)))
  if (f.amountFrom !== undefined) parts.push(part(`${amount} >= ?::numeric`, f.amountFrom))
  if (f.amountTo !== undefined) parts.push(part(`${amount} <= ?::numeric`, f.amountTo))
  if (f.blocks !== undefined) parts.push(part('x.block_number between ? and ?', f.blocks.from, f.blocks.to))
  if (f.methods !== undefined) parts.push(part(`${methodOf} = any(?::bytea[])`, any(f.methods)))
  return parts
}

/** One side per address when the address filters name the items' senders or receivers: their indexes lead with them. */
function addressSides (f: AdvancedFilter): Part[] | undefined {
  const from = (f.fromInclude ?? []).map((a) => part('x."from" = ?', a))
  const to = (f.toInclude ?? []).map((a) => part('x."to" = ?', a))
  if (from.length > 0 && (to.length === 0 || f.relation === 'and')) return from
  if (to.length > 0 && from.length === 0) return to
  return from.length > 0 ? [...from, ...to] : undefined
}

const ALL = [part('true')]

function transactionSource (f: AdvancedFilter, cursor: AdvancedFilterCursor | undefined): Source {
  const kind = kindOf('x', 'x."to" is null')
  const where = sharedConditions({ ...f, methods: undefined }, 'x.value', '')
  if (f.kinds.length < ITEM_KINDS.length) where.push(part(`${kind} = any(?)`, f.kinds as unknown as Knex.RawBinding))
  if (cursor !== undefined) where.push(part('(x.block_number, x.transaction_index) < (?, ?)', cursor.blockNumber, cursor.transactionIndex))
  let sides = addressSides(f)
  if (f.methods !== undefined) {
    // The index is partial on the selector's presence: the side states it for the planner.
    if (sides === undefined) sides = f.methods.map((m) => part(`octet_length(x.input) >= 4 and ${METHOD_ID('x')} = ?`, m))
    else where.push(part(`${METHOD_ID('x')} = any(?::bytea[])`, any(f.methods)))
  }
  return {
    kind: TRANSACTION,
    table: 'transactions',
    columns: `x.block_number, x.transaction_index, 0 as sub_index, 0 as batch_index, x.hash as transaction_hash, x."from", x."to",
      x.created_contract, x.value, ${kind} as item_type, null::bytea as token_address, null::text as token_type, null::numeric as amount, null::numeric as token_id`,
    order: 'x.block_number desc, x.transaction_index desc',
    where,
    sides: sides ?? ALL
  }
}

/** The item's transaction's selector, for internal transactions and transfers. */
const parentMethod = `(select ${METHOD_ID('p')} from transactions p where p.hash = x.transaction_hash)`

function internalSource (f: AdvancedFilter, cursor: AdvancedFilterCursor | undefined): Source {
  const kind = kindOf('x', 'x.type in (\'create\', \'create2\')')
  const where = [part(LISTED), ...sharedConditions(f, 'x.value', parentMethod)]
  if (f.kinds.length < ITEM_KINDS.length) where.push(part(`${kind} = any(?)`, f.kinds as unknown as Knex.RawBinding))
  if (cursor !== undefined) {
    where.push(cursor.internalIndex === null
      ? part('(x.block_number, x.transaction_index) <= (?, ?)', cursor.blockNumber, cursor.transactionIndex)
      : part('(x.block_number, x.transaction_index, x.trace_index) < (?, ?, ?)', cursor.blockNumber, cursor.transactionIndex, cursor.internalIndex))
  }
  return {
    kind: INTERNAL,
    table: 'internal_transactions',
    columns: `x.block_number, x.transaction_index, x.trace_index as sub_index, 0 as batch_index, x.transaction_hash, x."from", x."to",
      x.created_contract, x.value, ${kind} as item_type, null::bytea as token_address, null::text as token_type, null::numeric as amount, null::numeric as token_id`,
    order: 'x.block_number desc, x.transaction_index desc, x.trace_index desc',
    where,
    sides: addressSides(f) ?? ALL
  }
}

/** Transfers after the cursor. Logs are numbered through the block, so log order is transaction order. */
function transferAfter (cursor: AdvancedFilterCursor): Part {
  if (cursor.transferIndex !== null) {
    return part('(x.block_number, x.log_index, x.batch_index) < (?, ?, ?)', cursor.blockNumber, cursor.transferIndex, cursor.batchIndex ?? 0)
  }
  // After a transaction its own transfers are still to come; after an internal transaction they were shown.
  const sameTransaction = cursor.internalIndex === null ? '<=' : '<'
  return part(`x.block_number <= ? and (x.block_number < ? or x.transaction_index ${sameTransaction} ?)`, cursor.blockNumber, cursor.blockNumber, cursor.transactionIndex)
}

function transferSource (f: AdvancedFilter, cursor: AdvancedFilterCursor | undefined): Source {
  const where = sharedConditions(f, 'x.amount', parentMethod)
  if (f.tokenTypes.length < TOKEN_TYPES.length) where.push(part('x.token_type = any(?)', f.tokenTypes as unknown as Knex.RawBinding))
  if (f.tokensInclude !== undefined) where.push(part('x.token_address = any(?::bytea[])', any(f.tokensInclude)))
  if (f.tokensExclude !== undefined) where.push(part('x.token_address <> all(?::bytea[])', any(f.tokensExclude)))
  if (cursor !== undefined) where.push(transferAfter(cursor))
  const sides = addressSides(f) ??
    f.tokensInclude?.map((k) => part('x.token_address = ?', k)) ??
    (f.tokenTypes.length < TOKEN_TYPES.length ? f.tokenTypes.map((type) => part('x.token_type = ?', type)) : ALL)
  return {
    kind: TRANSFER,
    table: 'token_transfers',
    columns: `x.block_number, x.transaction_index, x.log_index as sub_index, x.batch_index, x.transaction_hash, x."from", x."to",
      null::bytea as created_contract, null::numeric as value, x.token_type as item_type, x.token_address, x.token_type, x.amount, x.token_id`,
    order: 'x.block_number desc, x.log_index desc, x.batch_index desc',
    where,
    sides
  }
}

/** The sources the filter leaves anything in. */
function sources (f: AdvancedFilter, cursor: AdvancedFilterCursor | undefined): Source[] {
  const list: Source[] = []
  if (f.kinds.length > 0) list.push(transactionSource(f, cursor), internalSource(f, cursor))
  if (f.tokenTypes.length > 0) list.push(transferSource(f, cursor))
  return list
}

/** One source's sides: each an index range scan of at most a page. */
function sideSelects (s: Source): Part[] {
  return s.sides.map((side) => {
    const conditions = [side, ...s.where]
    return {
      sql: `(select ${s.kind} as kind, ${s.columns} from ${s.table} x where ${conditions.map((c) => c.sql).join(' and ')} order by ${s.order} limit ${LIMIT})`,
      bindings: conditions.flatMap((c) => c.bindings)
    }
  })
}

const ITEM_COLUMNS = `p.kind, p.block_number, p.transaction_index, p.sub_index, p.batch_index, ${hexColumn('p.transaction_hash')} as hash,
  ${hexColumn('p."from"')} as "from", ${hexColumn('p."to"')} as "to", ${hexColumn('p.created_contract')} as created_contract, p.value::text,
  p.item_type, ${epochColumn('b.timestamp')} as timestamp, t.status, t.error,
  case when octet_length(t.input) >= 4 then ${hexColumn(METHOD_ID('t'))} end as method_id, (t.gas_used * t.effective_gas_price)::text as fee,
  ${isContract('p."from"')} as from_is_contract, coalesce(${isContract('p."to"')}, false) as to_is_contract,
  p.kind = ${TRANSFER} and exists (select 1 from logs l where l.block_number = p.block_number and l.log_index = p.sub_index and l.topic0 = ?) as in_batch,
  ${hexColumn('p.token_address')} as token_address, p.token_type, p.amount::text, p.token_id::text,
  k.name, k.symbol, k.decimals, k.total_supply::text, k.holder_count`

const PAGE_ORDER = 'block_number desc, transaction_index desc, kind, sub_index desc, batch_index desc'

/** One page (and one item more) of the filter's items, after `cursor`. */
export async function listAdvancedFilterItems (db: QueryDb, { filter: f, cursor }: { filter: AdvancedFilter, cursor?: AdvancedFilterCursor }): Promise<AdvancedFilterRow[]> {
  const selects = sources(f, cursor).flatMap(sideSelects)
  if (selects.length === 0) return []
  // union, not union all: an item an address matches on both sides comes once.
  const merged = `select * from (${selects.map((s) => s.sql).join(' union ')}) u order by ${PAGE_ORDER} limit ${LIMIT}`
  const { rows } = await db.knex.raw(`select ${ITEM_COLUMNS} from (${merged}) p
    join blocks b on b.number = p.block_number
    join transactions t on t.hash = p.transaction_hash
    left join tokens k on k.address = p.token_address
    order by ${PAGE_ORDER.replace(/(^|, )/g, '$1p.')}`, [TRANSFER_BATCH_TOPIC, ...selects.flatMap((s) => s.bindings)])
  return rows
}

/** The earliest and latest instants the age bounds default to, in epoch milliseconds: 1970 and the end of 9999. */
const AGE_FROM_MS = 0
const AGE_TO_MS = Date.UTC(9999, 11, 31, 23, 59, 59)

/** The blocks whose timestamps fall within [fromMs, toMs] (epoch milliseconds, either open), or undefined when the bounds leave none. */
export async function resolveAge (db: QueryDb, { fromMs, toMs }: { fromMs?: number, toMs?: number }): Promise<{ from: number, to: number } | undefined> {
  const { rows } = await db.knex.raw(`select
    coalesce((select number from blocks where timestamp >= to_timestamp(?::float8 / 1000) order by timestamp, number limit 1), -1) as first,
    coalesce((select number from blocks where timestamp <= to_timestamp(?::float8 / 1000) order by timestamp desc, number desc limit 1), -1) as last`,
  [fromMs ?? AGE_FROM_MS, toMs ?? AGE_TO_MS])
  const first = Number(rows[0].first)
  const last = Number(rows[0].last)
  return first < 0 || last < 0 || first > last ? undefined : { from: first, to: last }
}

/** The tokens the filter names, for search_params. */
export async function findFilterTokens (db: QueryDb, addresses: Buffer[]): Promise<TokenRecord[]> {
  if (addresses.length === 0) return []
  const { rows } = await db.knex.raw(`select ${hexColumn('address')} as address, type, name, symbol, decimals, total_supply::text, holder_count
    from tokens where address = any(?::bytea[])`, [any(addresses)])
  return rows
}
