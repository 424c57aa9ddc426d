// The Etherscan-style transaction and stats modules' reads: a transaction's
// outcome, and the coin's supply.
import type { QueryDb } from '../sql/query-db.ts'

export type TransactionOutcome = { status: number, error: string | null }

export async function findTransactionOutcome (db: QueryDb, hash: Buffer): Promise<TransactionOutcome | undefined> {
  const { rows } = await db.knex.raw('select status, error from transactions where hash = ?', [hash])
  return rows[0]
}

/**
 * The native coin's supply in wei: what the genesis block allotted less the
 * base fees burnt since. A clique chain issues nothing (no block reward; the
 * tips move coin from senders to signers), so nothing else changes the sum
 * of all balances. Both terms are small reads: the genesis block's balances
 * (index coin_balances_block) and one row a day of burnt fees (stats_daily,
 * summed by the indexer as it stores blocks; during a bulk load those sums
 * wait for its end, and so does this figure).
 */
export async function readCoinSupply (db: QueryDb): Promise<string> {
  const { rows } = await db.knex.raw(`select ((select coalesce(sum(value), 0) from coin_balances where block_number = 0)
    - (select coalesce(sum(burnt_fees), 0) from stats_daily))::text as supply`)
  return rows[0].supply
}
