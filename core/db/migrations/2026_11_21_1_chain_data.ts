import type { Knex } from 'knex'

// What the indexer stores from the chain. Hashes, addresses and byte strings
// are bytea; wei and other uint256 values numeric(78,0); gas fits bigint.
// Every child row cascades from its block, so a reorg deletes blocks above
// the common ancestor and nothing of theirs is left behind.
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`
    create table blocks (
      number bigint primary key,
      hash bytea not null unique,
      parent_hash bytea not null,
      timestamp timestamptz not null,
      miner bytea not null,
      signer bytea,
      gas_limit bigint not null,
      gas_used bigint not null,
      base_fee_per_gas numeric(78,0),
      size integer not null,
      nonce bytea not null,
      difficulty numeric(78,0) not null,
      total_difficulty numeric(78,0) not null,
      extra_data bytea not null,
      transaction_count integer not null,
      internal_transaction_count integer not null
    );
    create index blocks_signer_number on blocks (signer, number desc);
    create index blocks_timestamp on blocks (timestamp);

    create table transactions (
      hash bytea primary key,
      block_number bigint not null references blocks (number) on delete cascade,
      transaction_index integer not null,
      "from" bytea not null,
      "to" bytea,
      value numeric(78,0) not null,
      gas bigint not null,
      gas_price numeric(78,0),
      max_fee_per_gas numeric(78,0),
      max_priority_fee_per_gas numeric(78,0),
      type smallint not null,
      nonce bigint not null,
      input bytea not null,
      status smallint not null,
      gas_used bigint not null,
      cumulative_gas_used bigint not null,
      effective_gas_price numeric(78,0) not null,
      created_contract bytea,
      error text,
      revert_reason bytea,
      unique (block_number, transaction_index)
    );
    create index transactions_from on transactions ("from", block_number desc, transaction_index desc);
    create index transactions_to on transactions ("to", block_number desc, transaction_index desc);
    create index transactions_created_contract on transactions (created_contract) where created_contract is not null;

    create table logs (
      block_number bigint not null references blocks (number) on delete cascade,
      log_index integer not null,
      transaction_hash bytea not null,
      transaction_index integer not null,
      address bytea not null,
      topic0 bytea,
      topic1 bytea,
      topic2 bytea,
      topic3 bytea,
      data bytea not null,
      primary key (block_number, log_index)
    );
    create index logs_address on logs (address, block_number desc, log_index desc);
    create index logs_transaction on logs (transaction_hash, log_index);

    create table internal_transactions (
      block_number bigint not null references blocks (number) on delete cascade,
      transaction_index integer not null,
      trace_index integer not null,
      transaction_hash bytea not null,
      type text not null,
      "from" bytea not null,
      "to" bytea,
      value numeric(78,0) not null,
      gas bigint not null,
      gas_used bigint not null,
      input bytea not null,
      output bytea,
      error text,
      trace_address integer[] not null,
      created_contract bytea,
      primary key (block_number, transaction_index, trace_index)
    );
    create index internal_transactions_transaction on internal_transactions (transaction_hash, trace_index);
    create index internal_transactions_from on internal_transactions ("from", block_number desc, transaction_index desc, trace_index desc);
    create index internal_transactions_to on internal_transactions ("to", block_number desc, transaction_index desc, trace_index desc);
  `)
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop table internal_transactions, logs, transactions, blocks')
}
