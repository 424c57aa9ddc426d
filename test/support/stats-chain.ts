// A chain of several UTC days written through the store stage (storeBlocks),
// for the Stats API: blocks with chosen timestamps, senders that come back
// on later days, failed transactions, coin transfers, contract creations
// (direct and nested) and a token. A live clique chain cannot have days of history.
import { storeBlocks } from '../../core/indexer/store.ts'
import type { LatestBalances } from '../../core/indexer/latest-balances.ts'
import type { BlockRows, Hex } from '../../core/indexer/types.ts'
import type { Knex } from 'knex'

export const DAY_MS = 86_400_000
const hex = (n: number, bytes: number): Hex => `0x${n.toString(16).padStart(bytes * 2, '0')}`
export const address = (n: number): Hex => hex(n, 20)

/** Block n, `daysAgo` days before now (at least a minute in the past), with `txs` transactions from the senders given. */
export function makeBlock (n: number, ms: number, senders: number[], salt = 0): BlockRows {
  const hash = hex(10_000 + n * 10 + salt, 32)
  const transactions = senders.map((from, i) => ({
    hash: hex(1_000_000 + n * 1000 + i + salt * 100, 32),
    block_number: n,
    transaction_index: i,
    from: address(from),
    to: i % 4 === 3 ? null : address(500 + i),
    value: i % 3 === 0 ? '0' : String(1000 + i),
    gas: '100000',
    gas_price: null,
    max_fee_per_gas: '3000000000',
    max_priority_fee_per_gas: '1000000000',
    type: 2,
    nonce: String(n * 100 + i),
    input: '0x' as Hex,
    status: i % 5 === 4 ? 0 : 1,
    gas_used: String(21_000 + i * 1000),
    cumulative_gas_used: String(21_000 * (i + 1)),
    effective_gas_price: String(1_000_000_000 + i * 7 + n),
    created_contract: i % 4 === 3 ? address(900 + n * 10 + i) : null,
    error: null,
    revert_reason: null,
    has_token_transfers: false
  }))
  const touched = [...new Set(senders.map(address))]
  const nested = senders.length > 1
    ? [{
        block_number: n,
        transaction_index: 1,
        trace_index: 1,
        transaction_hash: transactions[1]!.hash,
        type: 'create',
        from: address(500 + 1),
        to: address(800 + n),
        value: '0',
        gas: '1000',
        gas_used: '500',
        input: '0x' as Hex,
        output: null,
        error: null,
        trace_address: [0],
        created_contract: address(800 + n)
      }]
    : []
  return {
    block: {
      number: n,
      hash,
      parent_hash: hex(n === 0 ? 0 : 10_000 + (n - 1) * 10, 32),
      timestamp: Math.floor(ms / 1000),
      miner: address(0),
      signer: null,
      gas_limit: '30000000',
      gas_used: String(transactions.reduce((s, t) => s + Number(t.gas_used), 0)),
      base_fee_per_gas: String(1_000_000_000 - n),
      size: 600 + senders.length * 110,
      nonce: hex(0, 8),
      difficulty: '2',
      total_difficulty: String(n * 2 + 1),
      extra_data: '0x',
      transaction_count: transactions.length,
      internal_transaction_count: nested.length
    },
    transactions,
    logs: [],
    internalTransactions: nested,
    tokenTransfers: [],
    state: { coinBalances: touched.map((a) => ({ address: a, block_number: n, value: String(10n ** 18n - BigInt(n)) })), contracts: [] },
    tokens: n === 2 ? [{ address: address(700), type: 'ERC-20', name: 'T', symbol: 'T', decimals: 18, total_supply: '1', first_block: n, updated_block: n }] : []
  }
}

/** Seven days of blocks up to a minute ago: per day a few blocks, senders reappearing. Returns the head's number. */
/** With `latest`, stored as the indexer's writer stores, with its cache of latest balances. */
export async function storeStatsChain (db: Knex, now = Date.now(), latest?: LatestBalances): Promise<number> {
  const midnight = now - now % DAY_MS
  const plan: Array<[ms: number, senders: number[]]> = [
    [midnight - 6 * DAY_MS + 1000, []],
    [midnight - 6 * DAY_MS + 3_600_000, [1, 2, 1]],
    [midnight - 5 * DAY_MS + 7_200_000, [2, 3]],
    [midnight - 5 * DAY_MS + 9_000_000, [3, 4, 5, 6, 7]],
    [midnight - 3 * DAY_MS + 100_000, [1, 8]],
    [midnight - DAY_MS + 50_000, [9, 9, 10, 2]],
    [midnight - DAY_MS + 80_000_000, [11]],
    [Math.max(midnight + 1000, now - 120_000), [12, 1, 13]],
    [now - 60_000, [14, 15]]
  ]
  let n = 0
  for (const [ms, senders] of plan) {
    // Two batches of one block and the rest one at a time: both paths of the store.
    await storeBlocks(db, [makeBlock(n, Math.min(ms, now - 60_000), senders)], latest)
    n++
  }
  return n - 1
}
