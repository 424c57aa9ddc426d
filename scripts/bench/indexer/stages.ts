// Diagnostics (BENCH_STAGES=1): each stage of the indexer on its own, with
// nothing else competing for this process's event loop.
//  - decode: the CPU the decode stage spends per block, and what recovering
//    the clique signer in JavaScript (secp256k1) costs, which decode does
//    when the fetch did not bring the signer from Geth;
//  - store: the backfill's own decoded batches written again, one after
//    another, into an empty database, with no fetch or decode alongside.
import { tmpdir } from 'node:os'
import { openDatabase } from '../../../core/db/index.ts'
import { fetchBlockBundles } from '../../../core/indexer/fetch.ts'
import { decodeBlockBundle } from '../../../core/indexer/decode.ts'
import { recoverCliqueSigner } from '../../../core/indexer/clique-signer.ts'
import { storeBlocks } from '../../../core/indexer/store.ts'
import type { BlockBundle, BlockRows } from '../../../core/indexer/types.ts'
import type { RpcClient } from '../../../core/rpc/client.ts'
import { createBenchLogger } from './log.ts'

export type DecodeStage = {
  blocks: number
  transactions: number
  decodeMs: number
  /** Recovering every sample block's signer in JavaScript. */
  signerMs: number
  /** The fetch brought the signer (clique_getSigner), so decode did not recover it. */
  signerFromNode: boolean
}
export type StoreStage = { batches: number, blocks: number, ms: number }

/** Decodes blocks 1..sampleBlocks (fetched first, untimed) and times decoding and signer recovery alone. */
export async function measureDecode (rpc: RpcClient, head: number, sampleBlocks: number, batchBlocks: number): Promise<DecodeStage> {
  const bundles: BlockBundle[] = []
  const last = Math.min(head, sampleBlocks)
  for (let from = 1; from <= last; from += batchBlocks) bundles.push(...await fetchBlockBundles(rpc, from, Math.min(from + batchBlocks - 1, last)))
  let startedAt = performance.now()
  for (const bundle of bundles) decodeBlockBundle(bundle)
  const decodeMs = performance.now() - startedAt
  startedAt = performance.now()
  for (const { block } of bundles) recoverCliqueSigner(block)
  const signerMs = performance.now() - startedAt
  const transactions = bundles.reduce((n, b) => n + b.block.transactions.length, 0)
  const signerFromNode = bundles.some((b) => (b as { signer?: unknown }).signer !== undefined)
  return { blocks: bundles.length, transactions, decodeMs, signerMs, signerFromNode }
}

/** Writes the batches again, in order, into the empty database at `databaseUrl`. */
export async function replayStore (databaseUrl: string, batches: BlockRows[][]): Promise<StoreStage> {
  const { log } = createBenchLogger()
  const database = await openDatabase({ url: databaseUrl, dataDir: tmpdir(), log })
  try {
    const startedAt = performance.now()
    for (const batch of batches) await storeBlocks(database.knex, batch)
    return { batches: batches.length, blocks: batches.reduce((n, b) => n + b.length, 0), ms: performance.now() - startedAt }
  } finally {
    await database.close()
  }
}
