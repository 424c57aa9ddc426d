import type { Knex } from 'knex'

// An address's NFTs as Blockscout lists them (/addresses/{hash}/nft and
// /nft/collections): by token type, then collection address ascending, then
// id descending. ERC-721 collections (their token_id -1 row) and ERC-1155 ids
// come straight off this index in that order, and a cursor is a range of it.
export async function up (knex: Knex): Promise<void> {
  await knex.raw('create index token_holdings_holder_type on token_holdings (holder, token_type, token_address, token_id desc) where value > 0')
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop index token_holdings_holder_type')
}
