// An instance that does not write (another holds the lock, or
// INDEXER_ENABLED=false) still hears of every block: it listens for the
// writer's commit notices (commit-feed.ts), reads each committed batch back
// and publishes it as the writer publishes its own, so its subscribers hear
// what subscribers of the writer hear.
import type { Knex } from 'knex'
import type { Logger } from '../logger.ts'
import { listenForCommits, readBackFrom, readCommittedBlocks, type CommitListener } from './commit-feed.ts'
import type { IndexerEvents } from './events.ts'

/** A reader that lost its commit notices for longer reads back at most this many blocks it missed. */
const MISSED_BLOCKS_READ_BACK = 1000

export type CommitHearingOptions = {
  db: Knex
  /** For the listening connection of its own. */
  databaseUrl: string
  log: Logger
  events: IndexerEvents
  /** Told the top of each commit heard: the reader's indexed head. */
  onHead: (head: number) => void
}

export type CommitHearing = {
  /** Listens, unless already listening; a connection that failed is opened again on the next call. */
  listen (): Promise<void>
  /** Stops listening and waits for the batches being read back to be published. */
  close (): Promise<void>
}

export function createCommitHearing (o: CommitHearingOptions): CommitHearing {
  let listener: CommitListener | undefined
  /** The last block a commit notice announced, while listening. */
  let heardThrough: number | undefined
  // Batches are read back one after another, so they are published in commit order.
  let publishing = Promise.resolve()

  /** Commits announced while the connection was down are read with the next one heard (a gap of up to MISSED_BLOCKS_READ_BACK). */
  function onCommit (from: number, to: number): void {
    const start = readBackFrom(heardThrough, from, MISSED_BLOCKS_READ_BACK)
    heardThrough = to
    o.onHead(to)
    if (!o.events.hasListeners()) return
    publishing = publishing.then(async () => {
      const blocks = await readCommittedBlocks(o.db, start, to)
      if (blocks.length > 0) o.events.publish({ type: 'block', blocks, storedHere: false })
    }).catch((err: Error) => o.log.warn({ err: err.message, from: start, to }, 'cannot read back the blocks the writer committed'))
  }

  /** The writer rolled back: published in its turn, after the batches heard before it. */
  function onReorg (ancestor: number, removed: number): void {
    heardThrough = ancestor
    o.onHead(ancestor)
    publishing = publishing.then(() => o.events.publish({ type: 'reorg', ancestor, removed, storedHere: false }))
  }

  return {
    async listen () {
      if (listener !== undefined) return
      listener = await listenForCommits(o.databaseUrl, o.log, { onCommit, onReorg, onEnd: () => { listener = undefined } })
    },
    async close () {
      const closing = listener
      listener = undefined
      heardThrough = undefined
      await closing?.close()
      await publishing
    }
  }
}
