import type { Knex } from 'knex'

// NFT metadata as read through tokenURI / uri and the document it names
// (core/nft-metadata/): fetched when an instance is first asked for, kept so
// that lists show it without fetching. A failed fetch is kept too, with its
// error, so that a broken URI is tried again only after a while.
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`create table token_instance_metadata (
    token_address bytea not null,
    token_id numeric(78, 0) not null,
    uri text,
    metadata jsonb,
    error text,
    fetched_at timestamptz not null,
    primary key (token_address, token_id)
  )`)
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop table token_instance_metadata')
}
