// A coin balance change as Blockscout's CoinBalance: the REST history's item
// and the socket's coin_balance event.
import type { CoinBalanceRecord } from '../../core/queries/addresses/coin-balances.ts'
import { epochTimestamp } from './present.ts'

/** A coin balance history item (also the socket's coin_balance event). */
export function presentCoinBalance (c: CoinBalanceRecord) {
  return {
    transaction_hash: c.transaction_hash,
    block_number: c.block_number,
    delta: c.delta,
    value: c.value,
    block_timestamp: epochTimestamp(c.timestamp)
  }
}
