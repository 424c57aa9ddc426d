// Reads the metadata of NFT ids in the background, as the index sees them
// minted, so instance lists show names and images before anyone opens each
// id (Blockscout's token instance fetchers do the same). It runs on the
// indexing instance alone, and only while the index follows the head: a
// backfill far behind is left to its own work, and the ids it minted are
// found afterwards by a sweep that walks every mint once, newest first.
// Reads go through the reader the REST routes use: an id asked for while its
// background read is under way waits for that read, not a second one.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import type { NftMetadataReader, NftType } from './index.ts'
import { ZERO_ADDRESS } from '../rows.ts'

export type MintedInstance = { token: Buffer, tokenId: string, type: NftType }

/** The token transfers a batch carries, as the indexer's rows have them. */
type Transfers = { tokenTransfers: ReadonlyArray<{ token_address: string, token_type: string, from: string, token_id: string | null }> }

const NFT_TYPES = new Set<string>(['ERC-721', 'ERC-1155'])
/** Reads at once: each is a tokenURI call to the node and mostly a wait on someone's HTTP server. */
const CONCURRENCY = 4
/** Ids waiting beyond this are dropped; a sweep from the top finds them again. */
const MAX_QUEUED = 10_000
/** Mints the sweep reads a statement. */
const SWEEP_PAGE = 500
/** Further behind the head than this, the index is backfilling: no reads. */
const FOLLOWING_BLOCKS = 100

/** The NFT ids these batches minted (sent from the zero address), each once. */
export function mintedInstances (batches: readonly Transfers[]): MintedInstance[] {
  const minted = new Map<string, MintedInstance>()
  for (const { tokenTransfers } of batches) {
    for (const t of tokenTransfers) {
      if (t.from !== ZERO_ADDRESS || t.token_id === null || !NFT_TYPES.has(t.token_type)) continue
      minted.set(`${t.token_address}:${t.token_id}`, { token: Buffer.from(t.token_address.slice(2), 'hex'), tokenId: t.token_id, type: t.token_type as NftType })
    }
  }
  return [...minted.values()]
}

export type NftMetadataFetcher = {
  /** After a commit: reads what the batches minted when the index is within reach of the head, and sweeps older mints when idle. */
  onBlocks (batches: readonly Transfers[], blocksBehind: number): void
  /** Resolves once nothing is queued or being read. */
  idle (): Promise<void>
  /** Drops the queue and waits for the reads under way. */
  close (): Promise<void>
}

type SweepCursor = { block_number: string, log_index: number, batch_index: number }

export function createNftMetadataFetcher ({ db, reader, log, maxQueued = MAX_QUEUED }: {
  db: Knex, reader: NftMetadataReader, log: Logger, maxQueued?: number
}): NftMetadataFetcher {
  const queue = new Map<string, MintedInstance>()
  let active = 0
  let closed = false
  // undefined: the sweep has not started; null: it has walked every mint.
  let sweepFrom: SweepCursor | null | undefined
  let sweeping = false
  // The sweep waits for the next commit: after a failure, and before walking
  // again for dropped ids (with the node down, reads keep nothing, and an
  // immediate new pass would read the same ids in a loop).
  let sweepPaused = false
  // Ids were dropped from a full queue: the sweep walks again from the top once its pass ends.
  let dropped = false
  let waiters: Array<() => void> = []

  /** Queues what fits; false when some had to be dropped. */
  function add (instances: MintedInstance[]): boolean {
    let fits = true
    for (const instance of instances) {
      const key = `${instance.token.toString('hex')}:${instance.tokenId}`
      if (queue.size < maxQueued || queue.has(key)) queue.set(key, instance)
      else fits = false
    }
    return fits
  }

  function enqueue (instances: MintedInstance[]): void {
    if (closed) return
    if (!add(instances)) {
      // After the sweep's pass ended, a new pass now (this is a commit, so the
      // pace is the chain's); during a pass, another once it ends.
      if (sweepFrom === null) sweepFrom = undefined
      else dropped = true
    }
    pump()
  }

  function pump (): void {
    while (active < CONCURRENCY && queue.size > 0) {
      const [key, next] = queue.entries().next().value as [string, MintedInstance]
      queue.delete(key)
      active++
      reader.read(next.token, next.tokenId, next.type)
        .catch((err: Error) => log.warn({ err: err.message, token: `0x${next.token.toString('hex')}`, token_id: next.tokenId }, 'NFT metadata read failed'))
        .finally(() => {
          active--
          pump()
        })
    }
    if (queue.size === 0 && active === 0 && !sweeping) {
      if (!closed && sweepFrom !== null && !sweepPaused) sweep().catch(() => {})
      else settle()
    }
  }

  function settle (): void {
    const woken = waiters
    waiters = []
    for (const wake of woken) wake()
  }

  /** The next page of mints below the cursor that have no metadata row yet (those read in between are skipped in the same statement). */
  async function sweep (): Promise<void> {
    sweeping = true
    try {
      const from = sweepFrom ?? undefined
      const below = from === undefined ? '' : 'and (t.block_number, t.log_index, t.batch_index) < (?::bigint, ?, ?)'
      const { rows } = await db.raw<{ rows: Array<SweepCursor & { token_address: Buffer, token_id: string, token_type: NftType }> }>(`
        select t.block_number::text, t.log_index, t.batch_index, t.token_address, t.token_id::text, t.token_type
        from token_transfers t
        where t."from" = ? and t.token_id is not null and t.token_type in ('ERC-721', 'ERC-1155') ${below}
          and not exists (select 1 from token_instance_metadata m where m.token_address = t.token_address and m.token_id = t.token_id)
        order by t.block_number desc, t.log_index desc, t.batch_index desc limit ${SWEEP_PAGE}`,
      [Buffer.from(ZERO_ADDRESS.slice(2), 'hex'), ...(from === undefined ? [] : [from.block_number, from.log_index, from.batch_index])])
      if (!closed && !add(rows.map((r) => ({ token: r.token_address, tokenId: r.token_id, type: r.token_type })))) dropped = true
      const last = rows[rows.length - 1]
      if (rows.length === SWEEP_PAGE && last !== undefined) sweepFrom = { block_number: last.block_number, log_index: last.log_index, batch_index: last.batch_index }
      // The pass is over; with ids dropped on the way, the next commit starts another.
      else [sweepFrom, sweepPaused, dropped] = dropped ? [undefined, true, false] : [null, sweepPaused, false]
    } catch (err) {
      sweepPaused = true
      log.warn({ err: (err as Error).message }, 'NFT metadata sweep failed; trying again after the next commit')
    } finally {
      sweeping = false
    }
    pump()
  }

  return {
    onBlocks (batches, blocksBehind) {
      if (closed || blocksBehind > FOLLOWING_BLOCKS) return
      sweepPaused = false
      enqueue(mintedInstances(batches))
    },
    async idle () {
      // A sweep part way through its pages is work under way; one not started is not.
      if (queue.size === 0 && active === 0 && !sweeping && (closed || sweepPaused || sweepFrom === undefined || sweepFrom === null)) return
      await new Promise<void>((resolve) => waiters.push(resolve))
    },
    async close () {
      closed = true
      queue.clear()
      // The last read or sweep to end settles the waiters (pump).
      if (active > 0 || sweeping) await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }
}
