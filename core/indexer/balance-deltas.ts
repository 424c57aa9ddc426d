// Pure: what a block did to coin balances, worked out from what the fetch
// brought instead of read from the node block by block. The state stage reads
// the balances at the two ends of a batch and accepts the blocks in between
// from these sums only when they arrive exactly at what the node says at the
// end (state.ts); anything this misses (value burnt by a self-destruct, a
// trace the node could not give) shows there as a mismatch, and that batch is
// read block by block instead.
import type { BlockRows, Hex } from './types.ts'

/** Frames that move coins: a delegate or static call carries its parent's value (or none) and moves nothing. */
const MOVES_VALUE = new Set(['call', 'create', 'create2', 'selfdestruct'])

/**
 * The change of each address's coin balance in the block: the sender pays
 * gas used times the effective price, the block's signer gets the tip above
 * the base fee (the base fee is burnt; on clique Geth pays the address it
 * recovers from the seal), and every call, create or self-destruct moves its
 * value unless it or a frame around it failed. Undefined when the signer is
 * not known (no clique API): the tips' recipient is then the node's to say.
 */
export function balanceDeltas (rows: BlockRows): Map<Hex, bigint> | undefined {
  const deltas = new Map<Hex, bigint>()
  if (rows.transactions.length === 0) return deltas
  const signer = rows.block.signer
  if (signer === null) return undefined
  const add = (address: Hex, amount: bigint): void => { deltas.set(address, (deltas.get(address) ?? 0n) + amount) }
  const baseFee = rows.block.base_fee_per_gas === null ? 0n : BigInt(rows.block.base_fee_per_gas)
  for (const tx of rows.transactions) {
    const gasUsed = BigInt(tx.gas_used)
    const price = BigInt(tx.effective_gas_price)
    add(tx.from, -gasUsed * price)
    add(signer, gasUsed * (price - baseFee))
  }
  // Frames come depth first: the innermost open frame at each depth is the parent of the next one deeper.
  const failedAtDepth: boolean[] = []
  for (const frame of rows.internalTransactions) {
    const depth = frame.trace_address.length
    const failed = frame.error !== null || (depth > 0 && failedAtDepth[depth - 1] === true)
    failedAtDepth[depth] = failed
    if (failed || frame.value === '0' || !MOVES_VALUE.has(frame.type)) continue
    const to = frame.to ?? frame.created_contract
    if (to === null) continue
    const value = BigInt(frame.value)
    add(frame.from, -value)
    add(to, value)
  }
  return deltas
}
