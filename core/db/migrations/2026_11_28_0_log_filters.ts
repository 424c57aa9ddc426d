import type { Knex } from 'knex'

// The criteria of each log filter installed through any gateway instance, by
// the filter id Geth gave it (core/json-rpc/shared-log-filters.ts): every
// instance proxies to the same node, so a filter made through one may be read
// through another, which needs the criteria to hold it to the log limits.
// `used_at` is moved on by the instances that read a filter (at most once a
// minute each); rows idle longer than Geth keeps a filter are deleted.
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`create table log_filters (
    id text primary key,
    criteria jsonb not null,
    used_at timestamptz not null default now()
  )`)
  await knex.raw('create index log_filters_used_at on log_filters (used_at)')
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop table log_filters')
}
