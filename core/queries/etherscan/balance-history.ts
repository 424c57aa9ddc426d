// The Etherscan-style account module's balancehistory: an address's coin
// balance as of a block, from the coin balance rows the indexer keeps at
// every block that may change it (coin_balances, keyed by address and block).
import type { QueryDb } from '../sql/query-db.ts'

/** Wei at `block`: the newest row at or before it; "0" before the address's first. */
export async function readCoinBalanceAt (db: QueryDb, { address, block }: { address: Buffer, block: number }): Promise<string> {
  const { rows } = await db.knex.raw(`select value::text from coin_balances where address = ? and block_number <= ?
    order by block_number desc limit 1`, [address, block])
  return rows[0]?.value ?? '0'
}
