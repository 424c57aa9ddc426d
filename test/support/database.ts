// One PostgreSQL database per test file: a fresh database on DATABASE_URL's
// server when it is set, otherwise an embedded PostgreSQL of the file's own.
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { startEmbeddedPostgres } from '../../core/db/embedded-postgres.ts'
import { createScratchDatabase } from '../../core/db/scratch.ts'
import { refuseInUnitRun } from './unit-run.ts'

type Tap = { teardown (fn: () => unknown): void }

export async function createTestDatabase (t: Tap): Promise<string> {
  refuseInUnitRun('PostgreSQL')
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
  const database = await createScratchDatabase(serverUrl, 'tg_test')
  t.teardown(database.drop)
  return database.url
}
