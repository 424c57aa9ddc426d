import type { Knex } from 'knex'

// Tokens and addresses. Token transfers and coin balance history hang off
// their block (a reorg deletes them); token_balances and address_counters are
// running sums of those rows, kept in step by the store in the same
// transaction (added on insert, subtracted before a delete). ERC-20 balances
// use token_id -1: a key column cannot be null and 0 is a real NFT id.
export async function up (knex: Knex): Promise<void> {
  await knex.raw(`
    create table token_transfers (
      block_number bigint not null references blocks (number) on delete cascade,
      log_index integer not null,
      batch_index integer not null default 0,
      transaction_hash bytea not null,
      transaction_index integer not null,
      token_address bytea not null,
      token_type text not null,
      "from" bytea not null,
      "to" bytea not null,
      amount numeric(78,0) not null,
      token_id numeric(78,0),
      primary key (block_number, log_index, batch_index)
    );
    create index token_transfers_token on token_transfers (token_address, block_number desc, log_index desc, batch_index desc);
    create index token_transfers_from on token_transfers ("from", block_number desc, log_index desc, batch_index desc);
    create index token_transfers_to on token_transfers ("to", block_number desc, log_index desc, batch_index desc);
    create index token_transfers_transaction on token_transfers (transaction_hash, log_index);
    create index token_transfers_token_id on token_transfers (token_address, token_id, block_number desc) where token_id is not null;

    create table tokens (
      address bytea primary key,
      type text not null,
      name text,
      symbol text,
      decimals smallint,
      total_supply numeric(78,0),
      holder_count integer not null default 0,
      first_block bigint not null,
      updated_block bigint not null
    );
    create index tokens_holder_count on tokens (holder_count desc, address);
    create index tokens_name on tokens (lower(name) text_pattern_ops);
    create index tokens_symbol on tokens (lower(symbol) text_pattern_ops);

    create table token_balances (
      token_address bytea not null,
      holder bytea not null,
      token_id numeric(78,0) not null,
      value numeric(78,0) not null,
      primary key (token_address, holder, token_id)
    );
    create index token_balances_holder on token_balances (holder, token_address);
    create index token_balances_token_value on token_balances (token_address, value desc, holder) where value > 0;

    create table coin_balances (
      address bytea not null,
      block_number bigint not null references blocks (number) on delete cascade,
      value numeric(78,0) not null,
      primary key (address, block_number)
    );
    create index coin_balances_block on coin_balances (block_number);

    -- One row per address and block that touched it: the balance after that
    -- block. first and last seen, and the current balance, derive from it.
    create table addresses (
      hash bytea primary key,
      coin_balance numeric(78,0) not null default 0,
      balance_block bigint,
      nonce bigint,
      contract_code bytea,
      creation_transaction bytea,
      creator bytea,
      creation_block bigint,
      first_block bigint,
      last_block bigint,
      transaction_count bigint not null default 0,
      token_transfer_count bigint not null default 0,
      gas_used numeric(78,0) not null default 0
    );
    create index addresses_coin_balance on addresses (coin_balance desc, hash);
  `)
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop table addresses, coin_balances, token_balances, tokens, token_transfers')
}
