// One PostgreSQL database per test file: a fresh database on DATABASE_URL's
// server when it is set, otherwise an embedded PostgreSQL of the file's own.
import { randomBytes } from 'node:crypto'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import pino from 'pino'
import { startEmbeddedPostgres } from '../../core/db/embedded-postgres.ts'

type Tap = { teardown (fn: () => unknown): void }

export async function createTestDatabase (t: Tap): Promise<string> {
  const serverUrl = process.env.DATABASE_URL
  if (serverUrl === undefined || serverUrl === '') {
    const dir = await mkdtemp(join(tmpdir(), 'tg-pg-'))
    await chmod(dir, 0o755)
    const server = await startEmbeddedPostgres({ databaseDir: join(dir, 'postgres'), log: pino({ level: 'warn' }) })
    t.teardown(async () => {
      await server.stop()
      await rm(dir, { recursive: true, force: true })
    })
    return server.url
  }
  const name = `tg_test_${randomBytes(6).toString('hex')}`
  await adminQuery(serverUrl, `create database ${name}`)
  t.teardown(async () => await adminQuery(serverUrl, `drop database if exists ${name} with (force)`))
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
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
