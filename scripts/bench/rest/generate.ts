// A synthetic chain in the indexer's decoded-batch shape (BlockRows), for
// filling a database through the store stage without a node. Deterministic:
// the same block number always gives the same rows, so a filled database can
// be reused between runs. Shape: plain transfers among a fixed set of
// addresses, one of them busy (a tenth of all transactions), and every tenth
// transaction an ERC-20 transfer of a token created in block 1.
import { createHash } from 'node:crypto'
import type { BlockRows, Hex, TransactionRow } from '../../../core/indexer/types.ts'

export type ChainShape = { blocks: number, transactionsPerBlock: number, addresses: number }

export const DEFAULT_SHAPE: ChainShape = { blocks: 100_000, transactionsPerBlock: 10, addresses: 10_000 }

const GENESIS_TIME_S = 1_767_225_600
const BLOCK_PERIOD_S = 5
const GAS_LIMIT = 30_000_000
const TRANSFER_GAS = 21_000
const TOKEN_TRANSFER_GAS = 51_000
const BASE_FEE = 1_000_000_000n
const TIP = 100_000_000n
const TOKEN_EVERY = 10
const FAIL_EVERY = 97
const BUSY_EVERY = 10
const ZERO: Hex = `0x${'00'.repeat(20)}`
const TRANSFER_TOPIC: Hex = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const TRANSFER_SELECTOR = 'a9059cbb'
const TOKEN_SUPPLY = 10n ** 27n

const digest = (label: string, bytes: number): Hex => `0x${createHash('sha256').update(label).digest('hex').slice(0, bytes * 2)}`

export const addressOf = (i: number): Hex => digest(`address:${i}`, 20)
export const blockHashOf = (n: number): Hex => digest(`block:${n}`, 32)
export const transactionHashOf = (n: number, index: number): Hex => digest(`tx:${n}:${index}`, 32)

/** The address in a tenth of all transactions (as sender or receiver). */
export const BUSY_ADDRESS = addressOf(0)
const SIGNER = addressOf(1)
const DEPLOYER = addressOf(2)
export const TOKEN_ADDRESS = digest('token', 20)

/** A cheap deterministic mix of two integers, for picking addresses and values. */
function mix (a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35)
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  h ^= h >>> 15
  return h >>> 0
}

const pad32 = (hex: string): string => hex.replace(/^0x/, '').padStart(64, '0')

/** Block `n` (1-based; block 0 is the empty genesis) with its transactions, logs, frames, transfers and balances. */
export function generateBlock (n: number, shape: ChainShape): BlockRows {
  const hash = blockHashOf(n)
  const rows: BlockRows = {
    block: {
      number: n,
      hash,
      parent_hash: n === 0 ? `0x${'00'.repeat(32)}` : blockHashOf(n - 1),
      timestamp: GENESIS_TIME_S + n * BLOCK_PERIOD_S,
      miner: ZERO,
      signer: n === 0 ? null : SIGNER,
      gas_limit: String(GAS_LIMIT),
      gas_used: '0',
      base_fee_per_gas: String(BASE_FEE),
      size: 600,
      nonce: '0x0000000000000000',
      difficulty: '2',
      total_difficulty: String(2 * n + 1),
      extra_data: `0x${'00'.repeat(97)}`,
      transaction_count: 0,
      internal_transaction_count: 0
    },
    transactions: [],
    logs: [],
    internalTransactions: [],
    tokenTransfers: [],
    state: { coinBalances: [], contracts: [] },
    tokens: []
  }
  if (n === 0) return rows
  let gasUsed = 0
  const touched = new Set<Hex>([SIGNER])
  for (let index = 0; index < shape.transactionsPerBlock; index++) {
    const tx = generateTransaction(n, index, shape, rows)
    gasUsed += Number(tx.gas_used)
    tx.cumulative_gas_used = String(gasUsed)
    rows.transactions.push(tx)
    rows.internalTransactions.push({
      block_number: n,
      transaction_index: index,
      trace_index: 0,
      transaction_hash: tx.hash,
      type: tx.created_contract === null ? 'call' : 'create',
      from: tx.from,
      to: tx.to ?? tx.created_contract,
      value: tx.value,
      gas: tx.gas,
      gas_used: tx.gas_used,
      input: tx.input,
      output: '0x',
      error: tx.error,
      trace_address: [],
      created_contract: tx.created_contract
    })
    touched.add(tx.from)
    if (tx.to !== null) touched.add(tx.to)
    if (tx.created_contract !== null) touched.add(tx.created_contract)
  }
  rows.block.gas_used = String(gasUsed)
  rows.block.transaction_count = rows.transactions.length
  for (const address of touched) {
    rows.state.coinBalances.push({ address, block_number: n, value: String(BigInt(mix(n, Number.parseInt(address.slice(2, 10), 16))) * 10n ** 12n) })
  }
  return rows
}

function generateTransaction (n: number, index: number, shape: ChainShape, rows: BlockRows): TransactionRow {
  const sequence = (n - 1) * shape.transactionsPerBlock + index
  const hash = transactionHashOf(n, index)
  const r = mix(n, index)
  // Address 0 is busy; 1 signs blocks; 2 deploys the token; the rest are drawn evenly.
  const pick = (salt: number): Hex => addressOf(3 + (mix(r, salt) % (shape.addresses - 3)))
  const busy = sequence % BUSY_EVERY === 0
  let from = busy && r % 2 === 0 ? BUSY_ADDRESS : pick(1)
  let to: Hex | null = busy && r % 2 === 1 ? BUSY_ADDRESS : pick(2)
  let input: Hex = '0x'
  let value = String(BigInt(r) * 10n ** 9n)
  let gasUsed = TRANSFER_GAS
  let created: Hex | null = null
  let movesTokens = false
  const status = sequence % FAIL_EVERY === FAIL_EVERY - 1 ? 0 : 1
  if (n === 1 && index === 0) {
    from = DEPLOYER
    to = null
    created = TOKEN_ADDRESS
    value = '0'
    gasUsed = 900_000
    input = `0x6080604052${'00'.repeat(64)}`
    rows.state.contracts.push({ address: TOKEN_ADDRESS, code: '0x6080604052', creation_transaction: hash, creator: DEPLOYER, block_number: 1 })
    rows.tokens.push({ address: TOKEN_ADDRESS, type: 'ERC-20', name: 'Bench Token', symbol: 'BNCH', decimals: 18, total_supply: String(TOKEN_SUPPLY), first_block: 1, updated_block: 1 })
    addTokenTransfer(rows, n, index, hash, ZERO, DEPLOYER, TOKEN_SUPPLY)
    movesTokens = true
  } else if (sequence % TOKEN_EVERY === 5 && status === 1) {
    const receiver = pick(3)
    const amount = BigInt(r % 1000 + 1)
    from = DEPLOYER
    to = TOKEN_ADDRESS
    value = '0'
    gasUsed = TOKEN_TRANSFER_GAS
    input = `0x${TRANSFER_SELECTOR}${pad32(receiver)}${pad32(amount.toString(16))}`
    addTokenTransfer(rows, n, index, hash, DEPLOYER, receiver, amount)
    movesTokens = true
  }
  return {
    hash,
    block_number: n,
    transaction_index: index,
    from,
    to,
    value,
    gas: String(gasUsed + 10_000),
    gas_price: String(BASE_FEE + TIP),
    max_fee_per_gas: String(BASE_FEE * 2n),
    max_priority_fee_per_gas: String(TIP),
    type: 2,
    nonce: String(sequence),
    input,
    status,
    gas_used: String(gasUsed),
    cumulative_gas_used: '0',
    effective_gas_price: String(BASE_FEE + TIP),
    created_contract: created,
    error: status === 0 ? 'execution reverted' : null,
    revert_reason: null,
    has_token_transfers: movesTokens
  }
}

function addTokenTransfer (rows: BlockRows, n: number, index: number, hash: Hex, from: Hex, to: Hex, amount: bigint): void {
  const logIndex = rows.logs.length
  rows.logs.push({
    block_number: n,
    log_index: logIndex,
    transaction_hash: hash,
    transaction_index: index,
    address: TOKEN_ADDRESS,
    topic0: TRANSFER_TOPIC,
    topic1: `0x${pad32(from)}`,
    topic2: `0x${pad32(to)}`,
    topic3: null,
    data: `0x${pad32(amount.toString(16))}`
  })
  rows.tokenTransfers.push({
    block_number: n,
    log_index: logIndex,
    batch_index: 0,
    transaction_hash: hash,
    transaction_index: index,
    token_address: TOKEN_ADDRESS,
    token_type: 'ERC-20',
    from,
    to,
    amount: amount.toString(),
    token_id: null
  })
}
