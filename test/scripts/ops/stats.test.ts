// `npm run ops -- stats rebuild`: the daily figures computed again from the
// indexed tables, every difference from the incremental ones printed.
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { parseOpsArgs } from '../../../scripts/ops/args.ts'
import { runStatsRebuild } from '../../../scripts/ops/stats.ts'
import type { OpsContext } from '../../../scripts/ops/context.ts'
import { createTestDatabase } from '../../support/database.ts'
import { storeStatsChain } from '../../support/stats-chain.ts'

t.test('parseOpsArgs() reads stats rebuild and refuses anything else', async (t) => {
  t.same(parseOpsArgs(['stats', 'rebuild']), { name: 'stats-rebuild' })
  for (const argv of [['stats'], ['stats', 'drop'], ['stats', 'rebuild', 'now'], ['stats', 'rebuild', '--from', '1']]) {
    t.throws(() => parseOpsArgs(argv), { code: 'GW_ERR_OPS_USAGE' }, argv.join(' '))
  }
})

t.test('stats rebuild reports no difference on incremental figures, and repairs a wrong one', async (t) => {
  const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '.', log: pino({ level: 'warn' }) })
  t.teardown(async () => await database.close())
  const db = database.knex
  await storeStatsChain(db)
  const run = async (): Promise<{ code: number, lines: string[] }> => {
    const lines: string[] = []
    const code = await runStatsRebuild({ ops: { db } as OpsContext, log: pino({ level: 'silent' }), out: (l) => lines.push(l), signal: new AbortController().signal })
    return { code, lines }
  }
  const clean = await run()
  t.equal(clean.code, 0)
  t.match(clean.lines.at(-1), / 0 differences /)
  const { rows: [{ day }] } = await db.raw("select to_char(min(day), 'YYYY-MM-DD') as day from stats_daily")
  await db.raw('update stats_daily set transactions = transactions + 5 where day = ?::date', [day])
  const wrong = await run()
  t.equal(wrong.code, 1)
  t.match(wrong.lines[0], new RegExp(`^${day} transactions: incremental \\d+, rebuilt \\d+$`))
  t.equal((await run()).code, 0, 'the rebuilt figures were kept')
})
