import type { Knex } from 'knex'

// The faucet's drips (core/faucet/): one row per drip, sent or still waiting
// to be mined. The cooldown is read from here, so it holds across restarts
// and across instances sharing the database. A drip that fails is deleted:
// it was never charged. `client` is the requester's IPv4 address or IPv6 /64.
// An operator's sends (`npm run ops -- faucet`) charge no cooldown and are not kept.
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`create table faucet_drips (
    id bigserial primary key,
    address bytea not null,
    client text not null,
    amount numeric(78, 0) not null,
    transaction_hash bytea,
    mined boolean not null default false,
    requested_at timestamptz not null default now()
  )`)
  await knex.raw('create index faucet_drips_address_requested_at on faucet_drips (address, requested_at desc)')
  await knex.raw('create index faucet_drips_client_requested_at on faucet_drips (client, requested_at desc)')
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop table faucet_drips')
}
