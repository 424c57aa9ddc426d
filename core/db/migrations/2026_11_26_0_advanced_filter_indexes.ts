import type { Knex } from 'knex'

// The advanced filter's method filter (core/queries/search/advanced-filters.ts): the
// transactions that call one 4-byte selector, newest first, read from an index
// that leads with the selector, as the address filters read transactions_from
// and transactions_to. Without it a rare method meant walking every
// transaction back to the chain's start. Partial: a plain transfer has no
// selector. Queries must write the expression as METHOD_ID does.
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`
    create index transactions_method on transactions (substring(input from 1 for 4), block_number desc, transaction_index desc)
      where octet_length(input) >= 4;
  `)
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop index transactions_method')
}
