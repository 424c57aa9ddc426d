// A chain whose genesis has timestamp 0 (Geth's default, this gateway's own
// genesis): the Stats API's charts start at the chain's first real day, not
// on 1970-01-01 with decades of empty days (issue 33).
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../../core/db/index.ts'
import { createQueries } from '../../../core/queries/index.ts'
import { storeBlocks } from '../../../core/indexer/store.ts'
import { createTestDatabase } from '../../support/database.ts'
import { DAY_MS, makeBlock } from '../../support/stats-chain.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '.', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const { readLinePoints } = createQueries({ knex: database.knex }).stats

const now = Date.now()
const firstDay = new Date(now - 2 * DAY_MS).toISOString().slice(0, 10)
await storeBlocks(database.knex, [makeBlock(0, 0, [])])
await storeBlocks(database.knex, [makeBlock(1, now - 2 * DAY_MS, [1, 2])])
await storeBlocks(database.knex, [makeBlock(2, now - 60_000, [3])])

t.test('readLinePoints: a genesis at timestamp 0 is left out of the range; the first point is the first real day', async (t) => {
  const days = await readLinePoints({ id: 'newTxns', resolution: 'DAY' })
  t.equal(days[0]?.date, firstDay)
  t.equal(days.length, 3, 'three days, not 20,000')
  t.equal(days[0]?.value, '2')
  const months = await readLinePoints({ id: 'newBlocks', resolution: 'MONTH' })
  t.equal(months[0]?.date, `${firstDay.slice(0, 7)}-01`)
  const growth = await readLinePoints({ id: 'txnsGrowth', resolution: 'DAY' })
  t.equal(growth.at(-1)?.value, '3', 'running totals still count every day')
})

t.test('readLinePoints: a range that asks for the epoch\'s day still shows it', async (t) => {
  const points = await readLinePoints({ id: 'newBlocks', from: '1970-01-01', to: '1970-01-02', resolution: 'DAY' })
  t.same(points.map((p) => [p.date, p.value]), [['1970-01-01', '1'], ['1970-01-02', '0']])
})
