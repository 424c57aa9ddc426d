// SQL the Stats API's readers (this folder) and /api/v2/stats share: sums of
// the daily rows the store keeps (stats_daily, core/stats/daily-stats.ts),
// the UTC day, the newest blocks and the blocks of the last 24 hours, which
// are found on the timestamp index and whose transactions are then read by
// block number (never a scan of the chain's tables).

/** Blocks the average block time and network utilisation are taken over. */
export const PACE_BLOCKS = 100

/** Today, as the daily rows count days. */
export const UTC_TODAY = "(now() at time zone 'UTC')::date"

/** Columns of stats_daily (values) summed over every day, or the days `where` picks (0 with none), under their names (keys). */
export const sumDays = (columns: Record<string, string>, where = 'true'): string =>
  `select ${Object.entries(columns).map(([name, column]) => `coalesce(sum(${column}), 0) as ${name}`).join(', ')} from stats_daily where ${where}`

/** The newest PACE_BLOCKS blocks' `columns`. */
export const newestBlocks = (columns: string): string => `select ${columns} from blocks order by number desc limit ${PACE_BLOCKS}`

/** The first and last block of the last 24 hours (nulls with none), as `first` and `last`. */
export const WINDOW_BLOCKS = "select min(number) as first, max(number) as last from blocks where timestamp >= now() - interval '24 hours'"
