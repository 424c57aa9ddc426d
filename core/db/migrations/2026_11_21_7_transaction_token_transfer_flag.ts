import type { Knex } from 'knex'

// Whether a transaction moved tokens, kept on its row. The explorer's
// transaction lists show it for every row ("token_transfer" among Blockscout's
// transaction types); as an existence check on token_transfers it was a
// descent of that big table's index per row, a quarter of PostgreSQL's time
// for a page of 50 (bench:rest). The indexer writes it with the transaction,
// from the same block's logs: nothing adds token transfers to a stored block.
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`
    alter table transactions add column has_token_transfers boolean not null default false;
    update transactions set has_token_transfers = true where hash in (select transaction_hash from token_transfers);
  `)
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('alter table transactions drop column has_token_transfers')
}
