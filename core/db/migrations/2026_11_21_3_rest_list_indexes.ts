import type { Knex } from 'knex'

// Indexes in the order of the REST lists that had none, so a deep page is read
// like the first. Blockscout leaves out the top-level call of a transaction
// (it is the transaction itself): the internal-transaction indexes are partial
// on that predicate, so the rows they skip are never read. Queries must repeat
// the predicate as written here for PostgreSQL to pick them
// (core/queries/transactions/internal-transactions.ts LISTED).
const LISTED_INTERNAL_TRANSACTION = '(trace_index > 0 or type <> \'call\')'

export async function up (knex: Knex): Promise<void> {
  await knex.raw(`
    create index internal_transactions_listed on internal_transactions (block_number desc, transaction_index desc, trace_index desc)
      where ${LISTED_INTERNAL_TRANSACTION};
    create index internal_transactions_from_listed on internal_transactions ("from", block_number desc, transaction_index desc, trace_index desc)
      where ${LISTED_INTERNAL_TRANSACTION};
    create index internal_transactions_to_listed on internal_transactions ("to", block_number desc, transaction_index desc, trace_index desc)
      where ${LISTED_INTERNAL_TRANSACTION};
    create index internal_transactions_created_contract on internal_transactions (created_contract, block_number desc, transaction_index desc, trace_index desc)
      where created_contract is not null;
    create index token_transfers_type on token_transfers (token_type, block_number desc, log_index desc, batch_index desc);
  `)
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw(`drop index internal_transactions_listed, internal_transactions_from_listed, internal_transactions_to_listed,
    internal_transactions_created_contract, token_transfers_type`)
}
