// Column expressions that hand node-postgres text it needs no parser for.
// bytea arrives as "\x…" text that pg decodes into a Buffer, which the APIs
// then encode back to 0x-hex; timestamptz arrives as text pg parses into a
// Date through a regular expression. For a page of 50 transactions those two
// parsers were half of the gateway's CPU per request (bench:rest).
import type { BlockRow } from '../../rows.ts'

/** bytea as 0x-hex text (null stays null). */
export const hexColumn = (column: string): string => `'0x' || encode(${column}, 'hex')`

/** A timestamptz as whole seconds since the epoch (block timestamps have no fraction). */
export const epochColumn = (column: string): string => `extract(epoch from ${column})::int`

/** What BLOCK_COLUMNS reads. */
export type BlockColumnsRow = Omit<BlockRow, 'extra_data'>

/**
 * A block `b` in BlockRow's shape less its extra data: numbers that fit one as
 * numbers, wei and gas as decimal text. REST and GraphQL both read these.
 */
export const BLOCK_COLUMNS = `b.number::int as number, ${hexColumn('b.hash')} as hash, ${hexColumn('b.parent_hash')} as parent_hash,
  ${epochColumn('b.timestamp')} as timestamp, ${hexColumn('b.miner')} as miner, ${hexColumn('b.signer')} as signer,
  b.gas_limit::text as gas_limit, b.gas_used::text as gas_used, b.base_fee_per_gas::text as base_fee_per_gas, b.size,
  ${hexColumn('b.nonce')} as nonce, b.difficulty::text as difficulty, b.total_difficulty::text as total_difficulty,
  b.transaction_count, b.internal_transaction_count`
