// Append-only list of migrations, in order. Knex records applied names in
// knex_migrations; a name, once released, never changes.
import type { Knex } from 'knex'
import * as chainMeta from './2026_11_21_0_chain_meta.ts'

type Migration = { up (knex: Knex): Promise<void>, down (knex: Knex): Promise<void> }

const MIGRATIONS: Array<[string, Migration]> = [
  ['2026_11_21_0_chain_meta', chainMeta]
]

export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => MIGRATIONS,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration
}
