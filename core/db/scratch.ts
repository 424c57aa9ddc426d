// Throwaway databases on a PostgreSQL server, for tests and benchmarks that
// must not touch each other's data.
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export type ScratchDatabase = { url: string, drop (): Promise<void> }

/**
 * Creates `<prefix>_<random>` on the server of `serverUrl`, empty or a copy of
 * the database `template` (which nobody may be connected to); drop() removes
 * it even with open connections.
 */
export async function createScratchDatabase (serverUrl: string, prefix: string, { template }: { template?: string } = {}): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  await adminQuery(serverUrl, template === undefined ? `create database ${name}` : `create database ${name} template ${template}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: async () => { await adminQuery(serverUrl, `drop database if exists ${name} with (force)`) } }
}

/** One statement on the server of `url`, on a connection of its own; its rows. */
export async function adminQuery<Row = Record<string, unknown>> (url: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql, params)).rows as Row[]
  } finally {
    await client.end()
  }
}
