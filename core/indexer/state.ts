// Fetch stage, second half: what a block changed in state, read at that very
// block (by hash, so a reorg between the two fetches fails instead of mixing
// branches): the coin balance of every address it touched and the code of
// every contract it created. The genesis block's accounts come from its dump.
// A block's balances come from one eth_call (balance-scanner.ts), not one
// eth_getBalance per address: Geth opens that block's state once, not per
// address, which costs the node about half as much. Only the addresses whose
// balance the block may have changed are read; the rest carry theirs forward.
import type { RpcClient } from '../rpc/client.ts'
import { RetryableError } from '../errors.ts'
import { decodeBalances, scanBalancesCall } from './balance-scanner.ts'
import type { BlockRows, ContractCodeRow, Hex } from './types.ts'

type GenesisDump = { accounts: Record<string, { balance: string, code?: string, address?: string }> }

/**
 * Addresses the block shows, split by whether it may have changed their coin
 * balance. Coins move only as fees (the sender pays them; the tips go to the
 * block's author, which on clique is the signer: the header's miner is the
 * zero address or a vote, and Geth pays the address it recovers from the
 * seal), as the value of a call,
 * create or self-destruct (each one a frame of the trace) and at genesis
 * (block 0's dump): `changed` holds everyone those could reach and is read at
 * the block. `unchanged` (the parties of token transfers, the targets of calls
 * without value) keep the balance of their last row: the store carries it
 * forward, saving the node a state read per address.
 */
export function touchedAddresses (rows: BlockRows): { changed: Hex[], unchanged: Hex[] } {
  // No transaction, no tip: an empty block changes no one's balance.
  const changed = new Set<Hex>(rows.transactions.length === 0 ? [] : [rows.block.signer ?? rows.block.miner])
  const seen = new Set<Hex>()
  for (const tx of rows.transactions) {
    changed.add(tx.from)
    if (tx.to !== null) (tx.value === '0' ? seen : changed).add(tx.to)
    if (tx.created_contract !== null) changed.add(tx.created_contract)
  }
  for (const frame of rows.internalTransactions) {
    if (frame.value === '0' && frame.created_contract === null) continue
    changed.add(frame.from)
    if (frame.to !== null) changed.add(frame.to)
    if (frame.created_contract !== null) changed.add(frame.created_contract)
  }
  for (const transfer of rows.tokenTransfers) {
    seen.add(transfer.from)
    seen.add(transfer.to)
  }
  return { changed: [...changed], unchanged: [...seen].filter((a) => !changed.has(a)) }
}

/** Contracts the block created and kept: successful top-level and internal creations. */
export function createdContracts (rows: BlockRows): Array<Omit<ContractCodeRow, 'code'>> {
  const created = new Map<Hex, Omit<ContractCodeRow, 'code'>>()
  for (const tx of rows.transactions) {
    if (tx.created_contract !== null && tx.status === 1) {
      created.set(tx.created_contract, { address: tx.created_contract, creation_transaction: tx.hash, creator: tx.from, block_number: rows.block.number })
    }
  }
  const succeeded = new Set(rows.transactions.filter((tx) => tx.status === 1).map((tx) => tx.hash))
  for (const frame of rows.internalTransactions) {
    if (frame.created_contract !== null && frame.trace_index > 0 && succeeded.has(frame.transaction_hash)) {
      created.set(frame.created_contract, { address: frame.created_contract, creation_transaction: frame.transaction_hash, creator: frame.from, block_number: rows.block.number })
    }
  }
  return [...created.values()]
}

/** Fills `state` of each block in place with one JSON-RPC batch. */
export async function fetchBlockStates (rpc: RpcClient, batch: BlockRows[], signal?: AbortSignal): Promise<void> {
  const plans = batch.map((rows) => {
    const { changed, unchanged } = rows.block.number === 0 ? { changed: [], unchanged: [] } : touchedAddresses(rows)
    return { rows, addresses: changed, unchanged, contracts: createdContracts(rows) }
  })
  const calls = plans.flatMap(({ rows, addresses, contracts }): Array<{ method: string, params: unknown[] }> => {
    const at = { blockHash: rows.block.hash, requireCanonical: false }
    if (rows.block.number === 0) return [{ method: 'debug_dumpBlock', params: ['0x0'] }]
    return [
      scanBalancesCall(addresses, at),
      ...contracts.map((c) => ({ method: 'eth_getCode', params: [c.address, at] }))
    ]
  })
  const results = await rpc.batch<unknown>(calls, signal).catch((err: Error) => {
    throw new RetryableError(`reading state failed (the block may have been replaced): ${err.message}`, { cause: err })
  })
  let i = 0
  for (const { rows, addresses, unchanged, contracts } of plans) {
    const number = rows.block.number
    if (number === 0) {
      const dump = results[i++] as GenesisDump
      rows.state.coinBalances = Object.entries(dump.accounts).map(([key, account]) => ({
        address: normaliseAddress(account.address ?? key),
        block_number: 0,
        value: BigInt(account.balance).toString()
      }))
      continue
    }
    const balances = decodeBalances(results[i++], addresses.length)
    rows.state.coinBalances = addresses.map((address, k) => ({ address, block_number: number, value: balances[k]! }))
    rows.state.unchangedBalances = unchanged
    rows.state.contracts = contracts.map((c) => ({ ...c, code: results[i++] as Hex }))
  }
}

function normaliseAddress (key: string): Hex {
  return (key.startsWith('0x') ? key : `0x${key}`).toLowerCase() as Hex
}
