// The database half of a backup: every table of the public schema copied out
// with COPY in one REPEATABLE READ snapshot (consistent while the indexer
// writes), with each table's row count in that same snapshot. Not pg_dump:
// the embedded server is PostgreSQL 17, a VM's pg_dump is often older, and
// pg_dump refuses a newer server. Restoring copies the rows back into a
// freshly migrated, empty database.
import { createReadStream, createWriteStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { join } from 'node:path'
import pg from 'pg'
import { from as copyFrom, to as copyTo } from 'pg-copy-streams'

/** Kept as the restoring code migrated them, never copied over. */
const MIGRATION_TABLES = new Set(['knex_migrations', 'knex_migrations_lock'])

export type DatabaseBackup = {
  tables: Record<string, number>
  migrations: string[]
  /** The highest indexed block in the snapshot. */
  indexHead: number | null
}

/** Each table's file is made with fileMode (the caller's choice: backups are private). */
export async function backupDatabase (url: string, dir: string, fileMode = 0o600): Promise<DatabaseBackup> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('begin isolation level repeatable read read only')
    const tables = await listTables(client)
    const counts: Record<string, number> = {}
    for (const table of tables) {
      await pipeline(client.query(copyTo(`copy ${quote(table)} to stdout`)), createWriteStream(join(dir, `${table}.copy`), { mode: fileMode }))
      counts[table] = Number((await client.query(`select count(*) as n from ${quote(table)}`)).rows[0].n)
    }
    const migrations = (await client.query('select name from knex_migrations order by id')).rows.map((r: { name: string }) => r.name)
    const top = (await client.query('select max(number) as n from blocks')).rows[0].n as string | null
    await client.query('commit')
    return { tables: counts, migrations, indexHead: top === null ? null : Number(top) }
  } finally {
    await client.end()
  }
}

/** Into a migrated database holding no rows: the caller checks it is empty. */
export async function restoreDatabase (url: string, dir: string, backup: Pick<DatabaseBackup, 'tables'>): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('begin')
    // Tables in any order: foreign keys and triggers are not checked while copying rows that satisfied them when copied out.
    await client.query('set local session_replication_role = replica')
    const present = new Set(await listTables(client))
    const tables = Object.keys(backup.tables)
    const missing = tables.find((table) => !present.has(table))
    if (missing !== undefined) throw new Error(`the backup has table ${missing}, which this version's schema lacks`)
    // All at once, before any copy: a table truncated after its referrers were
    // copied would empty them again by cascade (transaction_interpretations by transactions).
    if (tables.length > 0) await client.query(`truncate ${tables.map(quote).join(', ')} cascade`)
    for (const table of tables) {
      await pipeline(createReadStream(join(dir, `${table}.copy`)), client.query(copyFrom(`copy ${quote(table)} from stdin`)))
    }
    await resetSequences(client)
    await client.query('commit')
  } catch (err) {
    await client.query('rollback').catch(() => {})
    throw err
  } finally {
    await client.end()
  }
}

export async function countRows (url: string, tables: string[]): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const counts: Record<string, number> = {}
    for (const table of tables) counts[table] = Number((await client.query(`select count(*) as n from ${quote(table)}`)).rows[0].n)
    return counts
  } finally {
    await client.end()
  }
}

async function listTables (client: pg.Client): Promise<string[]> {
  const { rows } = await client.query("select tablename from pg_tables where schemaname = 'public' order by tablename")
  return rows.map((r: { tablename: string }) => r.tablename).filter((t: string) => !MIGRATION_TABLES.has(t))
}

/** Serial and identity columns go on from the restored rows' highest value. */
async function resetSequences (client: pg.Client): Promise<void> {
  const { rows } = await client.query(`
    select c.table_name, c.column_name, pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) as sequence
      from information_schema.columns c
     where c.table_schema = 'public' and pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) is not null`)
  for (const { table_name: table, column_name: column, sequence } of rows as Array<{ table_name: string, column_name: string, sequence: string }>) {
    await client.query(`select setval($1, coalesce((select max(${quote(column)}) from ${quote(table)}), 0) + 1, false)`, [sequence])
  }
}

function quote (identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`
}
