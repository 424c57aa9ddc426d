// The chain's recent pace: the newest indexed block and the average time
// between the newest blocks, as Blockscout's AverageBlockTime takes it. Read
// by the block countdown and by transactions' confirmation_duration. The
// genesis block is left out: its timestamp is when the chain was made (0 on
// a test chain), not when it was sealed, and would make a young chain's pace
// years long.
import { PACE_BLOCKS } from '../../stats/sql.ts'
import type { QueryDb } from '../sql/query-db.ts'

export type BlockPace = {
  /** The newest indexed block; null when none is. */
  head: number | null
  /** Milliseconds between the newest blocks on average; null with fewer than two. */
  blockTimeMs: number | null
}

const PACE_SQL = `
  with newest as (select number, timestamp from blocks where number > 0 order by number desc limit ${PACE_BLOCKS})
  select max(number)::float8 as head,
    case when count(*) < 2 then null else extract(epoch from max(timestamp) - min(timestamp)) * 1000 / (count(*) - 1) end::float8 as block_time_ms
  from newest`

export async function readBlockPace (db: QueryDb): Promise<BlockPace> {
  const { rows: [row] } = await db.knex.raw<{ rows: Array<{ head: number | null, block_time_ms: number | null }> }>(PACE_SQL)
  return { head: row?.head ?? null, blockTimeMs: row?.block_time_ms ?? null }
}
