// Throwaway databases on a PostgreSQL server, for tests and benchmarks that
// must not touch each other's data.
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export type ScratchDatabase = { url: string, drop (): Promise<void> }

/** Creates `<prefix>_<random>` on the server of `serverUrl`; drop() removes it even with open connections. */
export async function createScratchDatabase (serverUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  await adminQuery(serverUrl, `create database ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: async () => await adminQuery(serverUrl, `drop database if exists ${name} with (force)`) }
}

async function adminQuery (url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}
