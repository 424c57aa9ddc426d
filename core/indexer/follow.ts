// Follow stage: the node's chain, from the stored head on, as a stream of
// events. Fetches run ahead (a bounded number of batches in flight) while the
// consumer stores; each batch is checked against the chain it extends before
// it is handed over, so a reorg is caught before anything of the new branch
// is written, and arrives as a value (`reorg`), not as an exception.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import type { RpcClient } from '../rpc/client.ts'
import { decodeBlockBundle } from './decode.ts'
import { fetchBlockBundles, fetchBlockHashes, fetchHead, fetchHeadNumber } from './fetch.ts'
import type { NewHeads } from './new-heads.ts'
import { findCommonAncestor } from './reorg.ts'
import { fetchBlockStates } from './state.ts'
import { readIndexedHashes } from './store.ts'
import { fetchTokens, type TokenMetadataCache } from './tokens.ts'
import type { BlockRows, Hex } from './types.ts'

/** Blocks decoded between two turns of the event loop. */
const DECODE_SLICE_BLOCKS = 10

/**
 * `block`: blocks that extend the chain handed over so far, to be stored
 * before the next event is asked for; `nodeHead` is the node's head as
 * follow last read it. `reorg`: the node's chain no longer holds what is
 * stored above `ancestor` (the highest height both share, -1 for none); the
 * stream ends there and is started again from the rolled-back head.
 */
export type FollowEvent =
  | { type: 'block', batch: BlockRows[], nodeHead: number }
  | { type: 'reorg', ancestor: number }

export type FollowOptions = {
  rpc: RpcClient
  /** Read only, for the stored hashes a reorg walks back through. */
  db: Knex
  log: Logger
  newHeads: NewHeads
  /** The stored head: number -1 and no hash on an empty index. */
  stored: { number: number, hash: Hex | undefined }
  /** The node's head as the caller just read it. */
  nodeHead: number
  batchBlocks: number
  batchesInFlight: number
  headPollMs: number
  tokenCache: TokenMetadataCache
  /** Told each head read, for the status (/health, metrics). */
  onNodeHead: (head: number) => void
  signal: AbortSignal
}

type Fetching = { rows: Promise<BlockRows[]>, ready: boolean }

/**
 * Yields the chain above `stored` batch by batch, then each new head as it
 * comes, until `signal` aborts or a reorg is found. The consumer must store a
 * `block` event's batch before it asks for the next event: the next batch is
 * checked against it.
 */
export async function * follow (o: FollowOptions): AsyncGenerator<FollowEvent, void, undefined> {
  const { signal } = o
  let nextToFetch = o.stored.number + 1
  let handedOver = { number: o.stored.number, hash: o.stored.hash }
  let head = o.nodeHead
  const inFlight: Fetching[] = []
  const fill = (): void => {
    while (inFlight.length < o.batchesInFlight && nextToFetch <= head) {
      const to = Math.min(nextToFetch + o.batchBlocks - 1, head)
      const fetching: Fetching = { rows: fetchBatch(o, nextToFetch, to), ready: false }
      // Awaited in order below; the rejection handler only keeps an early failure from going unhandled.
      fetching.rows.then(() => { fetching.ready = true }, () => {})
      inFlight.push(fetching)
      nextToFetch = to + 1
    }
  }
  const readHead = (number: number): number => {
    head = number
    o.onNodeHead(head)
    return head
  }
  // A head the node announces is fetched at once, also while the consumer
  // stores the last batch: fetching overlaps storing, and no head read over
  // RPC stands between the seal and the fetch. A reorg still shows, in the
  // parent hashes (isLinked) or in the head read once caught up.
  const stopHearing = o.newHeads.onHead((announced) => {
    if (announced <= head) return
    readHead(announced)
    fill()
  })
  try {
    while (!signal.aborted) {
      fill()
      if (inFlight.length === 0) {
        await o.newHeads.wait(o.headPollMs, signal)
        // An announced head is being fetched already.
        if (inFlight.length > 0) continue
        const latest = await fetchHead(o.rpc, signal)
        // Caught up: a node head below ours, or a different block at our height, means the chain was replaced.
        if (latest.number < handedOver.number || (latest.number === handedOver.number && latest.hash !== handedOver.hash)) {
          yield await reorgBelow(o, handedOver.number)
          return
        }
        readHead(latest.number)
        continue
      }
      const batch = await inFlight.shift()!.rows
      // The store is the slower stage: batches fetched meanwhile go into the
      // same transaction, spreading its fixed cost over more blocks.
      for (let merged = 1; merged < o.batchesInFlight && inFlight[0]?.ready === true; merged++) batch.push(...await inFlight.shift()!.rows)
      fill()
      if (!isLinked(batch, handedOver.hash)) {
        yield await reorgBelow(o, handedOver.number)
        return
      }
      yield { type: 'block', batch, nodeHead: head }
      const { number, hash } = batch[batch.length - 1]!.block
      handedOver = { number, hash }
      // Without announcements the head is read here, so that a backfill goes on without waiting a poll.
      if (nextToFetch > head && !o.newHeads.live()) readHead(Math.max(head, await fetchHeadNumber(o.rpc, signal)))
    }
  } finally {
    stopHearing()
  }
}

/** The reorg event for a chain that no longer matches the index at `stored`. */
async function reorgBelow (o: FollowOptions, stored: number): Promise<FollowEvent> {
  const ancestor = await findCommonAncestor(Math.max(stored, 0),
    async (from, to) => await readIndexedHashes(o.db, from, to),
    async (numbers) => await fetchBlockHashes(o.rpc, numbers, o.signal))
  return { type: 'reorg', ancestor }
}

/** Fetch, decode, then read the state and token contracts the blocks touched. */
async function fetchBatch (o: FollowOptions, from: number, to: number): Promise<BlockRows[]> {
  const bundles = await fetchBlockBundles(o.rpc, from, to, o.signal)
  // Decoded a slice at a time, letting requests in between: parsing a
  // batch's answer and decoding all of it at once held the event loop for
  // tens of milliseconds during a backfill.
  const batch: BlockRows[] = []
  for (let i = 0; i < bundles.length; i += DECODE_SLICE_BLOCKS) {
    await new Promise((resolve) => setImmediate(resolve))
    for (const bundle of bundles.slice(i, i + DECODE_SLICE_BLOCKS)) batch.push(decodeBlockBundle(bundle))
  }
  const [state] = await Promise.all([fetchBlockStates(o.rpc, batch, o.signal), fetchTokens(o.rpc, batch, o.tokenCache, o.signal)])
  if (state.balances === 'sums refused') o.log.debug({ from, to }, 'coin balances read block by block: the blocks\' sums did not come to the node\'s')
  return batch
}

/** Each block's parent must be the block before it, the first one's the last block handed over. */
export function isLinked (batch: BlockRows[], parentHash: Hex | undefined): boolean {
  let expected = parentHash
  for (const { block } of batch) {
    if (expected !== undefined && block.parent_hash !== expected) return false
    expected = block.hash
  }
  return true
}
