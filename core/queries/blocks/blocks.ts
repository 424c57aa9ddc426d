// Block reads for the explorer APIs: keyset pages by number (the primary key's
// order, so a deep page costs what the first does) and fees summed per block.
import { BLOCK_COLUMNS, epochColumn, type BlockColumnsRow } from '../sql/columns.ts'
import { PAGE_SIZE } from '../sql/page-size.ts'
import type { QueryDb } from '../sql/query-db.ts'

/** A block as BLOCK_COLUMNS reads it (0x-hex text, epoch seconds: columns.ts says why), with its signer's kind and fees. */
export type BlockRecord = BlockColumnsRow & {
  signer_is_contract: boolean
  /** Sum of gas used x effective gas price over the block's transactions, in wei. */
  transaction_fees: string
  /** Sum of (effective gas price - base fee) x gas used: the signer's tips, in wei. */
  priority_fees: string
}

/** The block's columns (columns.ts), the signer's kind and the fees its transactions paid. */
const BLOCK_RECORD_COLUMNS = `${BLOCK_COLUMNS},
  coalesce(a.contract_code is not null, false) as signer_is_contract,
  coalesce(f.transaction_fees, 0)::text as transaction_fees, coalesce(f.priority_fees, 0)::text as priority_fees`

const FEES = `
  left join lateral (
    select sum(t.gas_used * t.effective_gas_price) as transaction_fees,
      sum(t.gas_used * (t.effective_gas_price - coalesce(b.base_fee_per_gas, 0))) as priority_fees
    from transactions t where t.block_number = b.number
  ) f on true
  left join addresses a on a.hash = coalesce(b.signer, b.miner)`

// The limit is written into the text: a bound one keeps PostgreSQL re-planning (see transactions.ts).
const pageOf = (where: string, limit: number) => `select ${BLOCK_RECORD_COLUMNS} from (
    select * from blocks ${where} order by number desc limit ${limit}
  ) b ${FEES} order by b.number desc`
const BY_NUMBER = `select ${BLOCK_RECORD_COLUMNS} from blocks b ${FEES} where b.number = $1`
const BY_HASH = `select ${BLOCK_RECORD_COLUMNS} from blocks b ${FEES} where b.hash = $1`

/** A page of blocks below `before` (newest first), one more than a page to tell whether another follows. */
export async function listBlocks (db: QueryDb, { before, limit = PAGE_SIZE }: { before?: number, limit?: number }): Promise<BlockRecord[]> {
  return before === undefined
    ? await db.prepared.rows<BlockRecord>(pageOf('', limit + 1), [])
    : await db.prepared.rows<BlockRecord>(pageOf('where number < $1', limit + 1), [before])
}

export async function findBlock (db: QueryDb, key: { number: number } | { hash: Buffer }): Promise<BlockRecord | undefined> {
  const [row] = 'number' in key
    ? await db.prepared.rows<BlockRecord>(BY_NUMBER, [key.number])
    : await db.prepared.rows<BlockRecord>(BY_HASH, [key.hash])
  return row
}

/** The newest stored block's number and timestamp (epoch seconds), or undefined while none is stored. */
export async function readLatestBlock (db: QueryDb): Promise<{ number: number, timestamp: number } | undefined> {
  const { rows } = await db.knex.raw(`select number::int as number, ${epochColumn('timestamp')} as timestamp from blocks order by number desc limit 1`)
  return rows[0]
}

/** Blocks the address sealed (clique signer), below `before`, newest first, from blocks_signer_number. */
export async function listBlocksBySigner (db: QueryDb, { signer, before }: { signer: Buffer, before?: number }): Promise<BlockRecord[]> {
  const { rows } = await db.knex.raw(`select ${BLOCK_RECORD_COLUMNS} from (
      select * from blocks where signer = ? ${before === undefined ? '' : 'and number < ?'} order by number desc limit ?
    ) b ${FEES} order by b.number desc`, before === undefined ? [signer, PAGE_SIZE + 1] : [signer, before, PAGE_SIZE + 1])
  return rows
}
