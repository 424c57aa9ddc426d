// The coin balance each address had at the newest block the indexer stored,
// for the addresses stored lately. A block's rows carry forward the balance
// of the addresses it shows without changing it (state.ts: token transfer
// parties, calls without value), and the store looked each one up in
// coin_balances, batch after batch, for the same few thousand addresses.
// Kept by the writer only; right only while nothing but its own commits
// changes the stored chain, so it is emptied whenever that may not hold:
// a new writer tenure, a reorg, a batch that found blocks to replace.
import type { CoinBalanceRow, Hex } from './types.ts'

/** About 250 bytes an entry: 50 MB at most. */
export const LATEST_BALANCES_MAX = 200_000

export type LatestBalances = {
  get: (address: Hex) => string | undefined
  /** A committed batch's rows, in block order: each address keeps its last. */
  record: (rows: CoinBalanceRow[]) => void
  clear: () => void
  readonly size: number
}

export function createLatestBalances (max = LATEST_BALANCES_MAX): LatestBalances {
  // A Map iterates in insertion order: deleting before setting moves an
  // address to the end, so the first key is the one stored longest ago.
  const balances = new Map<Hex, string>()
  return {
    get: (address) => balances.get(address),
    record (rows) {
      for (const { address, value } of rows) {
        balances.delete(address)
        balances.set(address, value)
      }
      for (const oldest of balances.keys()) {
        if (balances.size <= max) break
        balances.delete(oldest)
      }
    },
    clear: () => balances.clear(),
    get size () { return balances.size }
  }
}
