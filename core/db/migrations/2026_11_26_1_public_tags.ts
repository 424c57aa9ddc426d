import type { Knex } from 'knex'

// Names an operator gives addresses (`npm run ops -- tag <address> <name>`):
// the interpreter names an address by its verified contract, else its token,
// else this tag (core/interpreter/facts.ts).
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`create table public_tags (
    address bytea primary key,
    name text not null,
    created_at timestamptz not null default now()
  )`)
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop table public_tags')
}
