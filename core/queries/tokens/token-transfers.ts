// Token transfers for the explorer APIs, one row per ERC-1155 batch item.
// Lists run in (block, log index, batch index) order, newest first, except a
// transaction's own transfers, which run in log order as Blockscout shows them.
import type { Knex } from 'knex'
import type { Hex, TokenTransferRow, TokenType } from '../../rows.ts'
import { epochColumn, hexColumn } from '../sql/columns.ts'
import { PAGE_SIZE } from '../sql/page-size.ts'
import type { QueryDb } from '../sql/query-db.ts'

/** A transfer with its block, token and parties, as the REST lists show it. */
export type TokenTransferRecord = Omit<TokenTransferRow, 'transaction_index'> & {
  block_hash: Hex
  /** Seconds since the epoch. */
  timestamp: number
  name: string | null
  symbol: string | null
  decimals: number | null
  total_supply: string | null
  holder_count: number
  /** The first 4 bytes of the transaction's input as 0x-hex (its method selector; fewer for a short input): a page of an airdrop's transfers must not read its whole calldata once per row. */
  method_id: Hex
  from_is_contract: boolean
  to_is_contract: boolean
}

/** Exclusive keyset position; batchIndex BEFORE_ALL / AFTER_ALL passes a whole log. */
export type TokenTransferCursor = { blockNumber: number, logIndex: number, batchIndex: number }

const COLUMNS = `${hexColumn('tt.transaction_hash')} as transaction_hash, tt.block_number::int as block_number, ${hexColumn('b.hash')} as block_hash,
  ${epochColumn('b.timestamp')} as timestamp, tt.log_index, tt.batch_index, ${hexColumn('tt.token_address')} as token_address,
  tt.token_type, ${hexColumn('tt."from"')} as "from", ${hexColumn('tt."to"')} as "to", tt.amount::text, tt.token_id::text, k.name, k.symbol, k.decimals, k.total_supply::text,
  coalesce(k.holder_count, 0) as holder_count, ${hexColumn('substring(t.input from 1 for 4)')} as method_id,
  coalesce(fa.contract_code is not null, false) as from_is_contract, coalesce(ta.contract_code is not null, false) as to_is_contract`

const JOINS = `join blocks b on b.number = tt.block_number
  join transactions t on t.hash = tt.transaction_hash
  left join tokens k on k.address = tt.token_address
  left join addresses fa on fa.hash = tt."from"
  left join addresses ta on ta.hash = tt."to"`

const DESC = 'order by block_number desc, log_index desc, batch_index desc'
const OUTER_DESC = 'order by tt.block_number desc, tt.log_index desc, tt.batch_index desc'
const LIMIT = PAGE_SIZE + 1

async function select (db: QueryDb, inner: string, order: string, bindings: Knex.RawBinding[]): Promise<TokenTransferRecord[]> {
  const { rows } = await db.knex.raw(`select ${COLUMNS} from (${inner}) tt ${JOINS} ${order}`, bindings)
  return rows
}

function before (cursor: TokenTransferCursor | undefined) {
  return cursor === undefined
    ? { sql: '', bindings: [] as Knex.RawBinding[] }
    : { sql: 'and (block_number, log_index, batch_index) < (?, ?, ?)', bindings: [cursor.blockNumber, cursor.logIndex, cursor.batchIndex] }
}

/**
 * Newest first, from `sides` (each a where clause with its bindings) read
 * separately in index order and merged: every side is an index scan of at
 * most a page, whatever the depth.
 */
async function mergeSides (db: QueryDb, sides: Array<{ where: string, bindings: Knex.RawBinding[] }>, cursor: TokenTransferCursor | undefined): Promise<TokenTransferRecord[]> {
  const after = before(cursor)
  if (sides.length === 1) {
    const [side] = sides
    return await select(db, `select * from token_transfers where ${side!.where} ${after.sql} ${DESC} limit ${LIMIT}`, OUTER_DESC, [...side!.bindings, ...after.bindings])
  }
  const inner = sides.map((s) => `(select * from token_transfers where ${s.where} ${after.sql} ${DESC} limit ${LIMIT})`).join(' union ')
  return await select(db, `select * from (${inner}) s ${DESC} limit ${LIMIT}`, OUTER_DESC, sides.flatMap((s) => [...s.bindings, ...after.bindings]))
}

/** Every transfer of the chain, or of the given token types. */
export async function listTokenTransfers (db: QueryDb, { types, cursor }: { types?: TokenType[], cursor?: TokenTransferCursor }): Promise<TokenTransferRecord[]> {
  const sides = types === undefined ? [{ where: 'true', bindings: [] }] : types.map((type) => ({ where: 'token_type = ?', bindings: [type] }))
  return await mergeSides(db, sides, cursor)
}

/** The transfers of one token contract. */
export async function listTokenContractTransfers (db: QueryDb, { token, cursor }: { token: Buffer, cursor?: TokenTransferCursor }): Promise<TokenTransferRecord[]> {
  return await mergeSides(db, [{ where: 'token_address = ?', bindings: [token] }], cursor)
}

/** The transfers that moved one id of a token (token_transfers_token_id). */
export async function listInstanceTransfers (db: QueryDb, { token, tokenId, cursor }: { token: Buffer, tokenId: string, cursor?: TokenTransferCursor }): Promise<TokenTransferRecord[]> {
  return await mergeSides(db, [{ where: 'token_address = ? and token_id = ?::numeric', bindings: [token, tokenId] }], cursor)
}

export type AddressTokenTransferFilter = { filter?: 'from' | 'to', types?: TokenType[], token?: Buffer }

/**
 * The transfers from or to `address`. The type and token filters are applied
 * while reading the address's own index: they narrow an address's history,
 * they do not choose the index.
 */
export async function listAddressTokenTransfers (db: QueryDb, { address, options, cursor }: { address: Buffer, options: AddressTokenTransferFilter, cursor?: TokenTransferCursor }): Promise<TokenTransferRecord[]> {
  const extra = [
    ...(options.types === undefined ? [] : [{ sql: 'and token_type = any(?)', binding: options.types as Knex.RawBinding }]),
    ...(options.token === undefined ? [] : [{ sql: 'and token_address = ?', binding: options.token as Knex.RawBinding }])
  ]
  const side = (column: string) => ({ where: `"${column}" = ? ${extra.map((e) => e.sql).join(' ')}`, bindings: [address, ...extra.map((e) => e.binding)] })
  const sides = options.filter === 'from' ? [side('from')] : options.filter === 'to' ? [side('to')] : [side('from'), side('to')]
  return await mergeSides(db, sides, cursor)
}

/** A transaction's transfers in log order, after `cursor`, of the given types: one more than a page, or `all` of them. */
export async function listTransactionTokenTransfersPage (db: QueryDb, { hash, types, cursor, limit = LIMIT }: { hash: Buffer, types?: TokenType[], cursor?: TokenTransferCursor, limit?: number | 'all' }): Promise<TokenTransferRecord[]> {
  const where = [
    'transaction_hash = ?',
    ...(types === undefined ? [] : ['token_type = any(?)']),
    ...(cursor === undefined ? [] : ['(block_number, log_index, batch_index) > (?, ?, ?)'])
  ].join(' and ')
  const bindings = [hash, ...(types === undefined ? [] : [types]), ...(cursor === undefined ? [] : [cursor.blockNumber, cursor.logIndex, cursor.batchIndex])]
  return await select(db, `select * from token_transfers where ${where} order by block_number, log_index, batch_index limit ${limit}`,
    'order by tt.block_number, tt.log_index, tt.batch_index', bindings)
}

/** A transaction's first `limit` token transfers in log order (and one more, to tell whether there are more). */
export async function listTransactionTokenTransfers (db: QueryDb, { hash, limit }: { hash: Buffer, limit: number }): Promise<TokenTransferRecord[]> {
  return await db.prepared.rows<TokenTransferRecord>(`select ${COLUMNS} from token_transfers tt ${JOINS}
    where tt.transaction_hash = $1 order by tt.log_index, tt.batch_index limit ${limit + 1}`, [hash])
}

/** What a transfer's `method` is decoded from: its transaction's call, as the transaction detail decodes it. */
export type TransferCall = { hash: Hex, to: Hex | null, to_is_contract: boolean, input: Hex }

/**
 * The calls of the transactions `hashes` (a page's transfers' distinct
 * transactions), in one statement by primary key: each input is read once
 * per page, however many of the page's transfers one transaction made.
 */
export async function readTransferCalls (db: QueryDb, { hashes }: { hashes: Buffer[] }): Promise<TransferCall[]> {
  if (hashes.length === 0) return []
  const { rows } = await db.knex.raw<{ rows: TransferCall[] }>(`
    select ${hexColumn('t.hash')} as hash, ${hexColumn('t."to"')} as "to", ${hexColumn('t.input')} as input,
      exists (select 1 from addresses a where a.hash = t."to" and a.contract_code is not null) as to_is_contract
    from transactions t where t.hash = any(?)`, [hashes])
  return rows
}
