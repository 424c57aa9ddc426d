import type { Knex } from 'knex'

// Pre-calculated chain statistics (the Stats API, core/stats): one row a UTC
// day of sums the store keeps in its block transactions (added with a batch,
// taken out before a reorg deletes blocks), and the senders of each day for
// the account charts. Filled from what is already indexed by
// 2026_11_26_2_stats_native_coin, which adds the last columns the fill writes.
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`
    create table stats_daily (
      day date primary key,
      blocks numeric(78,0) not null default 0,
      block_size numeric(78,0) not null default 0,
      gas_used numeric(78,0) not null default 0,
      gas_limit numeric(78,0) not null default 0,
      burnt_fees numeric(78,0) not null default 0,
      transactions numeric(78,0) not null default 0,
      successful_transactions numeric(78,0) not null default 0,
      fees numeric(78,0) not null default 0,
      gas_price_sum numeric(78,0) not null default 0,
      native_coin_transfers numeric(78,0) not null default 0,
      new_contracts numeric(78,0) not null default 0,
      new_addresses numeric(78,0) not null default 0,
      new_tokens numeric(78,0) not null default 0,
      active_accounts numeric(78,0) not null default 0,
      new_accounts numeric(78,0) not null default 0
    );
    create table stats_day_senders (
      day date not null,
      address bytea not null,
      transactions bigint not null,
      primary key (day, address)
    );
    create index stats_day_senders_address on stats_day_senders (address, day);
    create index tokens_first_block on tokens (first_block);
  `)
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop table stats_daily, stats_day_senders; drop index tokens_first_block')
}
