// The Etherscan-style block module's reads: the block sealed closest to a
// time (index blocks_timestamp) and what a block paid its sealer.
import { hexColumn } from '../sql/columns.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type Closest = 'before' | 'after'

/** The newest block at or before `epochS`, or the oldest at or after it; undefined when there is none. */
export async function findBlockNumberByTime (db: QueryDb, { epochS, closest }: { epochS: number, closest: Closest }): Promise<string | undefined> {
  const sql = closest === 'before'
    ? 'select b.number from blocks b where b.timestamp <= to_timestamp(?) order by b.timestamp desc, b.number desc limit 1'
    : 'select b.number from blocks b where b.timestamp >= to_timestamp(?) order by b.timestamp, b.number limit 1'
  // Ordered by the bigint column, cast after: "order by number" would sort an output column number::text as text ('9' after '10').
  const { rows } = await db.knex.raw(`select number::text from (${sql}) closest`, [epochS])
  return rows[0]?.number
}

export type BlockReward = { blockNumber: string, timeStamp: string, blockMiner: string, blockReward: string }

/**
 * The block's sealer and what it earned. A clique chain issues no coin: the
 * sealer's only reward is the transactions' tips (the base fee is burnt),
 * paid to the address Geth recovers from the seal (the header's miner field
 * is zero or a vote). The genesis block has no seal: its miner is named.
 */
export async function readBlockReward (db: QueryDb, number: number): Promise<BlockReward | undefined> {
  const { rows } = await db.knex.raw(`select b.number::text as "blockNumber", extract(epoch from b.timestamp)::bigint::text as "timeStamp",
      ${hexColumn('coalesce(b.signer, b.miner)')} as "blockMiner",
      (select coalesce(sum(t.gas_used * (t.effective_gas_price - coalesce(b.base_fee_per_gas, 0))), 0) from transactions t
        where t.block_number = b.number)::text as "blockReward"
    from blocks b where b.number = ?`, [number])
  return rows[0]
}
