// Checks the index against the node block by block: hash, parent hash, the
// transaction hashes in order with their statuses, and the log count. Each
// range of blocks costs one JSON-RPC batch and three ranged queries, and a few
// ranges are read ahead while the previous one is compared.
import type { Knex } from 'knex'
import type { RpcClient } from '../rpc/client.ts'
import { RetryableError } from '../errors.ts'
import { toHex } from './store.ts'
import type { Hex } from './types.ts'

const VERIFY_BATCH_BLOCKS = 50
const VERIFY_RANGES_IN_FLIGHT = 3
/** A range whose block and receipts disagree was read across a reorg: read it again this often. */
const NODE_READ_ATTEMPTS = 3
/** Hashes named in one "transactions differ" line, each way. */
const LISTED_HASHES = 3

export type MismatchKind = 'missing' | 'unknown' | 'hash' | 'parent_hash' | 'transactions' | 'status' | 'logs'

/** One difference; `message` says it without the block number. */
export type Mismatch = { block: number, kind: MismatchKind, message: string }

export type VerifyOptions = {
  db: Knex
  rpc: RpcClient
  from: number
  to: number
  batchBlocks?: number
  rangesInFlight?: number
  /** Called as each mismatch is found, in block order. */
  onMismatch?: (mismatch: Mismatch) => void
  /** Called after each range, with the last block compared. */
  onProgress?: (verifiedTo: number) => void
  signal?: AbortSignal
}

export type VerifyReport = { from: number, to: number, blocks: number, mismatches: Mismatch[] }

/** What both sides say about one block. */
type BlockFacts = { hash: Hex, parentHash: Hex, transactions: Array<{ hash: Hex, status: number }>, logCount: number }
type RangeFacts = { from: number, to: number, indexed: Map<number, BlockFacts>, node: Map<number, BlockFacts> }

export async function verifyIndex (o: VerifyOptions): Promise<VerifyReport> {
  const batchBlocks = o.batchBlocks ?? VERIFY_BATCH_BLOCKS
  const rangesInFlight = o.rangesInFlight ?? VERIFY_RANGES_IN_FLIGHT
  const mismatches: Mismatch[] = []
  const reading: Array<Promise<RangeFacts>> = []
  let next = o.from
  while (next <= o.to || reading.length > 0) {
    while (reading.length < rangesInFlight && next <= o.to) {
      const to = Math.min(next + batchBlocks - 1, o.to)
      const facts = readRange(o, next, to)
      facts.catch(() => {}) // awaited in order below; this only keeps an early failure from going unhandled
      reading.push(facts)
      next = to + 1
    }
    const range = await reading.shift()!
    for (let n = range.from; n <= range.to; n++) {
      for (const mismatch of compareBlock(n, range.indexed.get(n), range.node.get(n))) {
        mismatches.push(mismatch)
        o.onMismatch?.(mismatch)
      }
    }
    o.onProgress?.(range.to)
  }
  return { from: o.from, to: o.to, blocks: Math.max(0, o.to - o.from + 1), mismatches }
}

async function readRange (o: VerifyOptions, from: number, to: number): Promise<RangeFacts> {
  const [indexed, node] = await Promise.all([readIndexedFacts(o.db, from, to), readNodeFacts(o.rpc, from, to, o.signal)])
  return { from, to, indexed, node }
}

export async function readIndexedFacts (db: Knex, from: number, to: number): Promise<Map<number, BlockFacts>> {
  const [blocks, transactions, logs] = await Promise.all([
    db('blocks').whereBetween('number', [from, to]).select('number', 'hash', 'parent_hash'),
    db('transactions').whereBetween('block_number', [from, to]).orderBy(['block_number', 'transaction_index']).select('block_number', 'hash', 'status'),
    db('logs').whereBetween('block_number', [from, to]).groupBy('block_number').select('block_number', db.raw('count(*)::integer as n'))
  ])
  const facts = new Map<number, BlockFacts>(blocks.map((b) => [Number(b.number), { hash: toHex(b.hash), parentHash: toHex(b.parent_hash), transactions: [], logCount: 0 }]))
  for (const t of transactions) facts.get(Number(t.block_number))?.transactions.push({ hash: toHex(t.hash), status: t.status })
  for (const l of logs) {
    const block = facts.get(Number(l.block_number))
    if (block !== undefined) block.logCount = l.n
  }
  return facts
}

type NodeBlock = { hash: Hex, parentHash: Hex, transactions: Hex[] } | null
type NodeReceipt = { transactionHash: Hex, blockHash: Hex, status: Hex, logs: unknown[] }

export async function readNodeFacts (rpc: RpcClient, from: number, to: number, signal?: AbortSignal): Promise<Map<number, BlockFacts>> {
  const calls = []
  for (let n = from; n <= to; n++) {
    const number = `0x${n.toString(16)}`
    calls.push({ method: 'eth_getBlockByNumber', params: [number, false] }, { method: 'eth_getBlockReceipts', params: [number] })
  }
  for (let attempt = 1; ; attempt++) {
    const results = await rpc.batch<unknown>(calls, signal)
    const facts = new Map<number, BlockFacts>()
    let consistent = true
    for (let n = from, i = 0; n <= to; n++, i += 2) {
      const block = results[i] as NodeBlock
      if (block === null) continue
      const receipts = (results[i + 1] ?? []) as NodeReceipt[]
      // Fetched in separate calls, a block and its receipts may straddle a reorg.
      consistent &&= receipts.length === block.transactions.length && receipts.every((r, j) => r.transactionHash === block.transactions[j] && r.blockHash === block.hash)
      facts.set(n, {
        hash: block.hash,
        parentHash: block.parentHash,
        transactions: receipts.map((r) => ({ hash: r.transactionHash, status: Number(r.status) })),
        logCount: receipts.reduce((count, r) => count + r.logs.length, 0)
      })
    }
    if (consistent) return facts
    if (attempt === NODE_READ_ATTEMPTS) throw new RetryableError(`the node's blocks ${from}..${to} changed while being read (a reorg?): verify again`)
  }
}

export function compareBlock (n: number, indexed: BlockFacts | undefined, node: BlockFacts | undefined): Mismatch[] {
  if (indexed === undefined && node === undefined) return []
  if (indexed === undefined) return [{ block: n, kind: 'missing', message: `not in the index; the node has ${node!.hash}` }]
  if (node === undefined) return [{ block: n, kind: 'unknown', message: `in the index as ${indexed.hash}, but the node has no block ${n}` }]
  const found: Mismatch[] = []
  const differ = (kind: MismatchKind, message: string) => found.push({ block: n, kind, message })
  if (indexed.hash !== node.hash) differ('hash', `hash ${indexed.hash} in the index, ${node.hash} on the node`)
  if (indexed.parentHash !== node.parentHash) differ('parent_hash', `parent hash ${indexed.parentHash} in the index, ${node.parentHash} on the node`)
  const ours = indexed.transactions.map((t) => t.hash)
  const theirs = node.transactions.map((t) => t.hash)
  if (ours.join() !== theirs.join()) differ('transactions', describeTransactionDifference(ours, theirs))
  const nodeStatus = new Map(node.transactions.map((t) => [t.hash, t.status]))
  for (const { hash, status } of indexed.transactions) {
    const expected = nodeStatus.get(hash)
    if (expected !== undefined && expected !== status) differ('status', `transaction ${hash} has status ${status} in the index, ${expected} on the node`)
  }
  if (indexed.logCount !== node.logCount) differ('logs', `${indexed.logCount} logs in the index, ${node.logCount} on the node`)
  return found
}

function describeTransactionDifference (ours: Hex[], theirs: Hex[]): string {
  const [oursSet, theirsSet] = [new Set(ours), new Set(theirs)]
  const missing = theirs.filter((h) => !oursSet.has(h))
  const extra = ours.filter((h) => !theirsSet.has(h))
  const parts = [`${ours.length} transactions in the index, ${theirs.length} on the node`]
  if (missing.length > 0) parts.push(`not indexed: ${listHashes(missing)}`)
  if (extra.length > 0) parts.push(`not on the node: ${listHashes(extra)}`)
  if (missing.length === 0 && extra.length === 0) {
    const at = ours.findIndex((h, i) => h !== theirs[i])
    parts.push(`in another order from position ${at}`)
  }
  return `transactions differ: ${parts.join('; ')}`
}

function listHashes (hashes: Hex[]): string {
  const shown = hashes.slice(0, LISTED_HASHES).join(', ')
  return hashes.length > LISTED_HASHES ? `${shown} and ${hashes.length - LISTED_HASHES} more` : shown
}

export function formatMismatch ({ block, message }: Mismatch): string {
  return `block ${block}: ${message}`
}
