import type { Knex } from 'knex'

// The indexer's bulk load (core/indexer/bulk-load.ts): while a row is in
// indexer_bulk_load, the running sums (addresses, token balances, holder
// counts) cover blocks only up to aggregated_through, and the secondary
// indexes and foreign keys listed in indexer_deferred_indexes are dropped, to
// be made again from their definitions when the backfill nears the head.
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`
    create table indexer_bulk_load (
      id boolean primary key default true check (id),
      aggregated_through bigint not null,
      started_at timestamptz not null default now()
    );
    create table indexer_deferred_indexes (
      kind text not null check (kind in ('index', 'foreign key')),
      table_name text not null,
      name text not null,
      definition text not null,
      primary key (kind, table_name, name)
    );
  `)
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop table indexer_deferred_indexes, indexer_bulk_load')
}
