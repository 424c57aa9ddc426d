// Append-only list of migrations, in order. Knex records applied names in
// knex_migrations; a name, once released, never changes.
import type { Knex } from 'knex'
import * as chainMeta from './2026_11_21_0_chain_meta.ts'
import * as chainData from './2026_11_21_1_chain_data.ts'
import * as tokensAddresses from './2026_11_21_2_tokens_addresses.ts'
import * as indexerBulkLoad from './2026_11_21_3_indexer_bulk_load.ts'

type Migration = { up (knex: Knex): Promise<void>, down (knex: Knex): Promise<void> }

const MIGRATIONS: Array<[string, Migration]> = [
  ['2026_11_21_0_chain_meta', chainMeta],
  ['2026_11_21_1_chain_data', chainData],
  ['2026_11_21_2_tokens_addresses', tokensAddresses],
  ['2026_11_21_3_indexer_bulk_load', indexerBulkLoad]
]

export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => MIGRATIONS,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration
}
