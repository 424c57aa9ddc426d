// Blockscout's StateChange: coin changes first, then token changes. ERC-721
// changes list the tokens moved instead of a number, as Blockscout's views do.
import type { CoinChange, StateChanges, TokenChange } from '../../core/queries/transactions/state-changes.ts'
import { presentToken } from './present-transaction.ts'
import { addressObject } from './present.ts'
import type { AddressNames } from '../../core/address-names/index.ts'

function presentCoinChange (c: CoinChange, names: AddressNames) {
  return {
    address: addressObject(c.address, c.is_contract, names),
    is_miner: c.is_miner,
    type: 'coin',
    token: null,
    token_id: null,
    balance_before: c.before.toString(),
    balance_after: c.after.toString(),
    change: (c.after - c.before).toString()
  }
}

function presentTokenChange (c: TokenChange, names: AddressNames) {
  return {
    address: addressObject(c.address, c.is_contract, names),
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

/** The addresses whose balances changed, for their names. */
export const stateChangeAddresses = (s: StateChanges) => [...s.coin, ...s.token].map((c) => c.address)

export const presentStateChanges = (s: StateChanges, names: AddressNames) =>
  [...s.coin.map((c) => presentCoinChange(c, names)), ...s.token.map((c) => presentTokenChange(c, names))]
