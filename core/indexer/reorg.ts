// Finding where the node's chain and the index part ways. A single clique
// signer re-seals heights after an unclean stop, so this can be deep.
import type { Hex } from './types.ts'

const WALK_BACK_STEP = 64

export type HashSource = (numbers: number[]) => Promise<Array<Hex | null>>

/**
 * The highest height at or below `from` where the index and the node hold the
 * same hash, or -1 when they share nothing (not even the genesis).
 */
export async function findCommonAncestor (from: number, indexed: (from: number, to: number) => Promise<Map<number, Hex>>, node: HashSource): Promise<number> {
  for (let top = from; top >= 0; top -= WALK_BACK_STEP) {
    const bottom = Math.max(0, top - WALK_BACK_STEP + 1)
    const ours = await indexed(bottom, top)
    const numbers = Array.from({ length: top - bottom + 1 }, (_, i) => top - i)
    const theirs = await node(numbers)
    for (const [i, n] of numbers.entries()) {
      const hash = ours.get(n)
      if (hash !== undefined && hash === theirs[i]) return n
    }
  }
  return -1
}
