import type { Knex } from 'knex'

// The holders of one NFT id by units held (/tokens/{hash}/instances/{id}/holders):
// an ERC-1155 id can have as many holders as a fungible token, and a page of
// them is a range of this index, not a sort of them all.
export async function up (knex: Knex): Promise<void> {
  await knex.raw('create index token_balances_instance_holders on token_balances (token_address, token_id, value desc, holder desc) where token_id >= 0 and value > 0')
}

export async function down (knex: Knex): Promise<void> {
  await knex.raw('drop index token_balances_instance_holders')
}
