// Blockscout's StateChange: coin changes first, then token changes. ERC-721
// changes list the tokens moved instead of a number, as Blockscout's views do.
import type { CoinChange, StateChanges, TokenChange } from '../../core/queries/state-changes.ts'
import { presentToken } from './present-transaction.ts'
import { addressObject } from './present.ts'

function presentCoinChange (c: CoinChange) {
  return {
    address: addressObject(c.address, c.is_contract),
    is_miner: c.is_miner,
    type: 'coin',
    token: null,
    token_id: null,
    balance_before: c.before.toString(),
    balance_after: c.after.toString(),
    change: (c.after - c.before).toString()
  }
}

function presentTokenChange (c: TokenChange) {
  return {
    address: addressObject(c.address, c.is_contract),
    is_miner: c.is_miner,
    type: 'token',
    token: presentToken(c.token),
    token_id: c.token_id,
    balance_before: c.before.toString(),
    balance_after: c.after.toString(),
    change: c.token.token_type === 'ERC-721'
      ? c.moves.map((m) => ({ total: { token_id: m.token_id, token_instance: null }, direction: m.direction }))
      : (c.after - c.before).toString()
  }
}

export const presentStateChanges = (s: StateChanges) => [...s.coin.map(presentCoinChange), ...s.token.map(presentTokenChange)]
