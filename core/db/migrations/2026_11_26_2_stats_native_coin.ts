import type { Knex } from 'knex'
import { rebuildDailyStats } from '../../stats/daily-stats.ts'

// The Stats API's native coin figures: per UTC day, the change in the number
// of addresses holding coins and in the coins they hold (the holders and
// supply charts are running totals of these). Every daily row is computed
// again here, from what is already indexed: the first fill of stats_daily
// (2026_11_24_0) happens here too, with these columns.
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`alter table stats_daily
    add column native_coin_holders numeric(78,0) not null default 0,
    add column native_coin_supply numeric(78,0) not null default 0`)
  await knex.transaction(async (trx) => { await rebuildDailyStats(trx) })
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('alter table stats_daily drop column native_coin_holders, drop column native_coin_supply')
}
