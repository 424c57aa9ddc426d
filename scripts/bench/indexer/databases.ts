// Throwaway databases for the benchmark's runs: on DATABASE_URL's server when
// it is set, otherwise on one embedded PostgreSQL started for the whole run.
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import pg from 'pg'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../../core/logger.ts'
import { startEmbeddedPostgres } from '../../../core/db/embedded-postgres.ts'
import { createScratchDatabase, type ScratchDatabase } from '../../../core/db/scratch.ts'
import { BENCH_LOG_LEVEL } from './chain-config.ts'
import { readPostmasterPid } from '../../lib/cpu.ts'

export type DatabaseServer = {
  kind: 'external' | 'embedded'
  /** The embedded server's postmaster, for its CPU time; undefined for an external server. */
  pid: number | undefined
  /** A fresh, empty database; dropped by close() if not before. */
  create (prefix: string): Promise<ScratchDatabase>
  /**
   * Writes out what earlier runs left dirty (CHECKPOINT), so that a floor run
   * right after a backfill does not share the CPUs with that server's writes.
   */
  settle (): Promise<void>
  close (): Promise<void>
}

export async function openDatabaseServer (): Promise<DatabaseServer> {
  const serverUrl = process.env.DATABASE_URL
  if (serverUrl !== undefined && serverUrl !== '') return track('external', undefined, serverUrl, async () => {})
  const dir = await mkdtemp(join(tmpdir(), 'tg-bench-pg-'))
  // Embedded PostgreSQL runs as another user when we are root and must reach its directory.
  await chmod(dir, 0o755)
  try {
    const server = await startEmbeddedPostgres({ databaseDir: join(dir, 'postgres'), log: createLogger({ level: BENCH_LOG_LEVEL }) })
    return track('embedded', await readPostmasterPid(join(dir, 'postgres')), server.adminUrl, async () => {
      await server.stop()
      await rm(dir, { recursive: true, force: true })
    })
  } catch (err) {
    await rm(dir, { recursive: true, force: true })
    throw err
  }
}

function track (kind: DatabaseServer['kind'], pid: number | undefined, serverUrl: string, stopServer: () => Promise<void>): DatabaseServer {
  const open = new Set<ScratchDatabase>()
  return {
    kind,
    pid,
    async create (prefix) {
      const database = await createScratchDatabase(serverUrl, prefix)
      const tracked: ScratchDatabase = {
        url: database.url,
        drop: async () => {
          open.delete(tracked)
          await database.drop()
        }
      }
      open.add(tracked)
      return tracked
    },
    async settle () {
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      try {
        await client.query('checkpoint')
      } finally {
        await client.end()
      }
    },
    async close () {
      for (const database of [...open]) await database.drop().catch((err: unknown) => console.error(`dropping ${database.url} failed: ${(err as Error).message}`))
      await stopServer()
    }
  }
}
