// The indexer's own batch size and batches in flight. They are module
// constants of core/indexer/index.ts, not exported, so they are read from its
// source: the floor then always fetches the way the indexer does, even after
// someone retunes them. If the source no longer says, the last known values
// are mirrored here and the report says so.
import { readFile } from 'node:fs/promises'

const INDEXER_SOURCE = new URL('../../../core/indexer/index.ts', import.meta.url)
const MIRRORED = { batchBlocks: 20, batchesInFlight: 4 }

export type IndexerDefaults = { batchBlocks: number, batchesInFlight: number, source: 'core/indexer/index.ts' | 'mirrored' }

export async function readIndexerDefaults (): Promise<IndexerDefaults> {
  const source = await readFile(INDEXER_SOURCE, 'utf8').catch(() => '')
  const constant = (name: string): number | undefined => {
    const match = new RegExp(`^const ${name} = ([0-9_]+)$`, 'm').exec(source)
    return match === null ? undefined : Number(match[1]!.replaceAll('_', ''))
  }
  const batchBlocks = constant('BATCH_BLOCKS')
  const batchesInFlight = constant('BATCHES_IN_FLIGHT')
  if (batchBlocks === undefined || batchesInFlight === undefined) return { ...MIRRORED, source: 'mirrored' }
  return { batchBlocks, batchesInFlight, source: 'core/indexer/index.ts' }
}
