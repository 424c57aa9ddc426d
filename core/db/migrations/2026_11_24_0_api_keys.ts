import type { Knex } from 'knex'

// API keys (core/api-keys/): only each key's SHA-256 is kept, never the key.
// Usage is summed per key and UTC day by the gateway in memory and added here
// in batches, so a busy key costs one upsert every few seconds, not one a request.
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`create table api_keys (
    id bigint generated always as identity primary key,
    key_hash bytea not null unique,
    label text not null,
    tier text not null check (tier in ('public', 'premium')),
    limit_per_min integer check (limit_per_min > 0),
    created_at timestamptz not null default now(),
    last_used_at timestamptz,
    revoked_at timestamptz
  )`)
  await knex.raw('create index api_keys_label on api_keys (label)')
  await knex.raw(`create table api_key_usage (
    key_id bigint not null references api_keys (id) on delete cascade,
    day date not null,
    requests bigint not null default 0,
    rejections bigint not null default 0,
    primary key (key_id, day)
  )`)
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop table api_key_usage')
  await knex.raw('drop table api_keys')
}
