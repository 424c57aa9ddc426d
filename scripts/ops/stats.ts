// `ops stats rebuild`: the Stats API's daily figures computed again from the
// indexed tables, with every difference from the incremental ones printed
// (there should be none: a difference is a bug in the store's bookkeeping).
import { rebuildAndCompareDailyStats } from '../../core/stats/daily-stats.ts'
import type { OpsCommandContext } from './command.ts'

export async function runStatsRebuild ({ ops, log, out }: OpsCommandContext): Promise<number> {
  const started = Date.now()
  const { days, differences } = await rebuildAndCompareDailyStats(ops.db)
  for (const d of differences) out(`${d.day} ${d.column}: incremental ${d.incremental ?? 'absent'}, rebuilt ${d.rebuilt ?? 'absent'}`)
  out(`stats rebuild: ${days} days recomputed in ${Date.now() - started} ms, ${differences.length} differences from the incremental figures (the rebuilt ones are kept)`)
  log.info({ days, differences: differences.length }, 'stats rebuilt')
  return differences.length === 0 ? 0 : 1
}
