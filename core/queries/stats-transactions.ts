// Blockscout's /api/v2/transactions/stats: the last 24 hours' transactions
// and their fees. The window is found on the block timestamp index, then its
// transactions read by block number.
import type { QueryDb } from './sql/query-db.ts'
import { WINDOW_BLOCKS } from './stats-sql.ts'

export type TransactionStats = { count24h: string, feesSum24h: string, feesAverage24h: string }

export async function readTransactionStats (db: QueryDb): Promise<TransactionStats> {
  const { rows: [row] } = await db.knex.raw<{ rows: Array<{ count: string, fees: string }> }>(`
    with window_blocks as (
      ${WINDOW_BLOCKS}
    )
    select count(t.hash)::text as count, coalesce(sum(t.gas_used * t.effective_gas_price), 0)::text as fees
    from window_blocks w left join transactions t on t.block_number between w.first and w.last`)
  const count = BigInt(row!.count)
  const fees = BigInt(row!.fees)
  return { count24h: count.toString(), feesSum24h: fees.toString(), feesAverage24h: count === 0n ? '0' : (fees / count).toString() }
}
