// The Etherscan-style gastracker module's reads: the newest blocks' gas used
// over their limit and the base fee of the block to come. The priority fees
// the oracle suggests are the Stats API's (core/stats/chain.ts), so /api and
// /api/v2/stats suggest the same.
import { nextBaseFee } from '../../stats/chain.ts'
import type { QueryDb } from '../sql/query-db.ts'

/** Etherscan's gasUsedRatio covers the newest five blocks. */
export const GAS_USED_RATIO_BLOCKS = 5

export type GasUse = {
  /** The newest indexed block; null with none. */
  lastBlock: number | null
  /** Gas used over gas limit of the newest blocks, oldest first. */
  gasUsedRatios: number[]
  /** Wei: the next block's base fee as EIP-1559 derives it from the newest; null before London or with no block. */
  nextBaseFee: bigint | null
}

type BlockGas = { number: number, gas_used: string, gas_limit: string, base_fee: string | null }

export async function readGasUse (db: QueryDb): Promise<GasUse> {
  const { rows } = await db.knex.raw<{ rows: BlockGas[] }>(`select number::int, gas_used::text, gas_limit::text, base_fee_per_gas::text as base_fee
    from blocks order by number desc limit ${GAS_USED_RATIO_BLOCKS}`)
  const newest = rows[0]
  return {
    lastBlock: newest?.number ?? null,
    gasUsedRatios: rows.map((b) => Number(b.gas_limit) === 0 ? 0 : Number(b.gas_used) / Number(b.gas_limit)).reverse(),
    nextBaseFee: newest === undefined || newest.base_fee === null ? null : nextBaseFee(BigInt(newest.gas_used), BigInt(newest.gas_limit), BigInt(newest.base_fee))
  }
}
