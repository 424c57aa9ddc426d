import type { Knex } from 'knex'

/** One row naming the chain this database indexes, so a database is never mixed with another chain's data. */
export async function up (knex: Knex): Promise<void> {
  await knex.schema.createTable('chain_meta', (t) => {
    t.boolean('id').primary().defaultTo(true).checkIn(['true'])
    t.integer('chain_id').notNullable()
    t.specificType('genesis_hash', 'bytea').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
}

export async function down (knex: Knex): Promise<void> {
  await knex.schema.dropTable('chain_meta')
}
