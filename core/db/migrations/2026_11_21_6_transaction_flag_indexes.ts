import type { Knex } from 'knex'

// Small partial indexes behind the per-transaction flags of the explorer
// APIs: "is this address a contract" and "did an inner call fail". Each flag
// is an existence check on one of them, reading a few index pages instead of
// the address row or every frame of the transaction.
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`
    create index addresses_contracts on addresses (hash) where contract_code is not null;
    create index internal_transactions_errors on internal_transactions (transaction_hash) where error is not null and trace_index > 0;
  `)
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop index addresses_contracts, internal_transactions_errors')
}
