import type { Knex } from 'knex'

// Summaries the interpreter wrote (core/interpreter/cache.ts), one row per
// transaction. A reorg that removes the transaction removes its row with it
// (the foreign key cascades inside the indexer's rollback, on every instance
// sharing the database). A row is used only while its version is current:
// the version holds the templates' version (a constant of the code) and the
// generation in interpretation_generation, which a newly verified contract
// bumps; invalidateInterpretations() deletes the rows naming given addresses
// (the GIN index finds them).
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`create table transaction_interpretations (
    transaction_hash bytea primary key references transactions (hash) on delete cascade,
    version text not null,
    summaries jsonb not null,
    addresses bytea[] not null,
    created_at timestamptz not null default now()
  )`)
  await knex.raw('create index transaction_interpretations_addresses on transaction_interpretations using gin (addresses)')
  await knex.raw(`create table interpretation_generation (
    id boolean primary key default true check (id),
    generation bigint not null
  )`)
  await knex.raw('insert into interpretation_generation (generation) values (0)')
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop table interpretation_generation')
  await knex.raw('drop table transaction_interpretations')
}
