// Fetch stage, second half: what a block changed in state, read by block hash
// (so a reorg between the two fetches fails instead of mixing branches): the
// coin balance of every address it touched and the code of every contract it
// created. The genesis block's accounts come from its dump.
// Balances are read with one eth_call per block state (balance-scanner.ts),
// not one eth_getBalance per address: Geth opens that state once, not per
// address. A batch reads two: before its first block and at its last; the
// blocks in between get theirs from what each block's fees, tips and value
// transfers did (balance-deltas.ts), kept only when those sums arrive at what
// the node says at the end, else read block by block. Only the addresses
// whose balance a block may have changed get a balance; the rest carry theirs
// forward. Many addresses are read in several calls (SCAN_MAX_ADDRESSES
// each), as a call's gas is capped.
import type { RpcCall, RpcClient } from '../rpc/client.ts'
import { RetryableError } from '../errors.ts'
import { balanceScan, readScans, type BalanceScan } from './balance-scanner.ts'
import { balanceDeltas } from './balance-deltas.ts'
import type { BlockRows, ContractCodeRow, Hex } from './types.ts'

/** A batch sums its blocks' balances only when it has more blocks to read than the two reads that check the sums. */
const SUMMED_MIN_BLOCKS = 2
type Plan = { rows: BlockRows, addresses: Hex[], unchanged: Hex[], contracts: Array<Omit<ContractCodeRow, 'code'>> }

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
 * forward, saving the node a state read per address (for the bench chain's
 * batches, reading them too at both ends took Geth 2.6 times as long).
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

/**
 * How a batch's balances were read: summed from two reads, read block by
 * block (too few blocks for sums to save reads, or no signer to pay tips
 * to), or read block by block after the sums did not come to the node's.
 */
export type BalanceReading = 'summed' | 'per block' | 'sums refused'

/**
 * Fills `state` of each block in place: one JSON-RPC batch, and a second one
 * only when the sums were refused. Says how the balances were read.
 */
export async function fetchBlockStates (rpc: RpcClient, batch: BlockRows[], signal?: AbortSignal): Promise<{ balances: BalanceReading }> {
  const plans: Plan[] = batch.map((rows) => {
    const { changed, unchanged } = rows.block.number === 0 ? { changed: [], unchanged: [] } : touchedAddresses(rows)
    return { rows, addresses: changed, unchanged, contracts: createdContracts(rows) }
  })
  const blocks = plans.filter((p) => p.rows.block.number !== 0)
  const reading = blocks.filter((p) => p.addresses.length > 0)
  // Two reads are no saving for one or two blocks (following the head).
  const deltas = reading.length > SUMMED_MIN_BLOCKS ? blockDeltas(blocks) : undefined
  const everyone = deltas === undefined ? [] : [...new Set(reading.flatMap((p) => p.addresses))]
  const calls = plans.flatMap(({ rows, contracts }): RpcCall[] => rows.block.number === 0
    ? [{ method: 'debug_dumpBlock', params: ['0x0'] }]
    : contracts.map((c) => ({ method: 'eth_getCode', params: [c.address, at(rows.block.hash)] })))
  const scans = deltas === undefined
    ? perBlockScans(reading)
    : [balanceScan(everyone, at(blocks[0]!.rows.block.parent_hash)), balanceScan(everyone, at(blocks[blocks.length - 1]!.rows.block.hash))]
  const results = await readState(rpc, [...calls, ...scans.flatMap((s) => s.calls)], signal)
  let i = 0
  for (const { rows, unchanged, contracts } of plans) {
    if (rows.block.number === 0) {
      rows.state.coinBalances = genesisBalances(results[i++] as GenesisDump)
      continue
    }
    rows.state.unchangedBalances = unchanged
    rows.state.contracts = contracts.map((c) => ({ ...c, code: results[i++] as Hex }))
  }
  if (deltas === undefined) {
    fillPerBlock(reading, scans, results.slice(i))
    return { balances: 'per block' }
  }
  const [before, after] = readScans(scans, results.slice(i)) as [string[], string[]]
  if (sumBalances(blocks, deltas, everyone, before, after)) return { balances: 'summed' }
  // The sums missed something (value burnt, a frame the trace did not show): ask the node block by block.
  const perBlock = perBlockScans(reading)
  fillPerBlock(reading, perBlock, await readState(rpc, perBlock.flatMap((s) => s.calls), signal))
  return { balances: 'sums refused' }
}

/** Each block's balance changes; undefined when any block's cannot be worked out (no signer: the tips have nowhere to go). */
function blockDeltas (blocks: Plan[]): Array<Map<Hex, bigint>> | undefined {
  const deltas: Array<Map<Hex, bigint>> = []
  for (const p of blocks) {
    const d = balanceDeltas(p.rows)
    if (d === undefined) return undefined
    deltas.push(d)
  }
  return deltas
}

const perBlockScans = (reading: Plan[]): BalanceScan[] => reading.map((p) => balanceScan(p.addresses, at(p.rows.block.hash)))

const at = (blockHash: Hex): { blockHash: Hex, requireCanonical: boolean } => ({ blockHash, requireCanonical: false })

async function readState (rpc: RpcClient, calls: RpcCall[], signal?: AbortSignal): Promise<unknown[]> {
  if (calls.length === 0) return []
  return await rpc.batch<unknown>(calls, signal).catch((err: Error) => {
    throw new RetryableError(`reading state failed (the block may have been replaced): ${err.message}`, { cause: err })
  })
}

/**
 * Each block's balances from the ones before the batch plus the blocks'
 * changes, into the rows, only when they come to what the node read after the
 * batch for every address; false (rows untouched) when any does not.
 */
function sumBalances (blocks: Plan[], deltas: Array<Map<Hex, bigint>>, everyone: Hex[], before: string[], after: string[]): boolean {
  const balance = new Map(everyone.map((a, k) => [a, BigInt(before[k]!)]))
  const perBlock = blocks.map((p, b) => {
    for (const [address, change] of deltas[b]!) balance.set(address, (balance.get(address) ?? 0n) + change)
    return p.addresses.map((address) => ({ address, block_number: p.rows.block.number, value: balance.get(address)!.toString() }))
  })
  if (!everyone.every((a, k) => balance.get(a)!.toString() === after[k])) return false
  blocks.forEach((p, b) => { p.rows.state.coinBalances = perBlock[b]! })
  return true
}

/** The per-block scans' answers (perBlockScans), into the blocks that were read. */
function fillPerBlock (reading: Plan[], scans: BalanceScan[], answers: unknown[]): void {
  const balances = readScans(scans, answers)
  reading.forEach(({ rows, addresses }, k) => {
    rows.state.coinBalances = addresses.map((address, a) => ({ address, block_number: rows.block.number, value: balances[k]![a]! }))
  })
}

function genesisBalances (dump: GenesisDump): BlockRows['state']['coinBalances'] {
  return Object.entries(dump.accounts).map(([key, account]) => ({
    address: normaliseAddress(account.address ?? key),
    block_number: 0,
    value: BigInt(account.balance).toString()
  }))
}

function normaliseAddress (key: string): Hex {
  return (key.startsWith('0x') ? key : `0x${key}`).toLowerCase() as Hex
}
