// Embedded PostgreSQL's superuser password: random, made on first start and
// kept in DATA_DIR beside the other secrets (mode 0600). The server listens on
// loopback, where any local user could otherwise log in as superuser.
//
// Clusters made before this was kept were initialised with the password
// `postgres`. On their first start without the file a new password is written
// to a pending file first, then set with ALTER ROLE, then the pending file
// takes the kept file's name: a start interrupted at any step finds either
// the old password or the pending one in force, and tries both.
import { randomBytes } from 'node:crypto'
import { rename } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import pg from 'pg'
import type { Logger } from '../logger.ts'
import { readIfExists, writeSecret } from '../fs/secret-file.ts'

export const EMBEDDED_USER = 'postgres'
/** What every embedded cluster was initialised with before the password was kept. */
export const LEGACY_PASSWORD = 'postgres'
const PASSWORD_FILE = 'postgres.password'
const PENDING_SUFFIX = '.pending'
const PASSWORD_BYTES = 32
/** SQLSTATE invalid_password. */
const INVALID_PASSWORD = '28P01'

/** DATA_DIR/postgres.password for a cluster in DATA_DIR/postgres. */
export function embeddedPasswordFile (databaseDir: string): string {
  return join(dirname(databaseDir), PASSWORD_FILE)
}

/** The kept password, or undefined when none is kept yet. */
export async function readEmbeddedPassword (databaseDir: string): Promise<string | undefined> {
  return (await readIfExists(embeddedPasswordFile(databaseDir)))?.trim()
}

/** For a new cluster: a random password, kept before the cluster is made with it. */
export async function createEmbeddedPassword (databaseDir: string): Promise<string> {
  const password = randomBytes(PASSWORD_BYTES).toString('hex')
  await writeSecret(embeddedPasswordFile(databaseDir), password + '\n')
  return password
}

/**
 * For a running cluster with no kept password: replaces the legacy password
 * with a random one and keeps it. Returns the password now in force.
 */
export async function replaceLegacyPassword (databaseDir: string, port: number, log: Logger): Promise<string> {
  const file = embeddedPasswordFile(databaseDir)
  const pending = file + PENDING_SUFFIX
  let password = (await readIfExists(pending))?.trim()
  if (password === undefined) {
    password = randomBytes(PASSWORD_BYTES).toString('hex')
    await writeSecret(pending, password + '\n')
  }
  // An earlier start may have set it and stopped before the rename.
  if (!await acceptsPassword(port, password)) {
    const client = new pg.Client({ host: '127.0.0.1', port, user: EMBEDDED_USER, password: LEGACY_PASSWORD, database: 'postgres' })
    await client.connect()
    try {
      await client.query(`alter role ${client.escapeIdentifier(EMBEDDED_USER)} with password ${client.escapeLiteral(password)}`)
    } finally {
      await client.end()
    }
    log.warn({ password_file: file }, 'embedded PostgreSQL had the default superuser password: replaced it with a random one, kept in the password file')
  }
  await rename(pending, file)
  return password
}

async function acceptsPassword (port: number, password: string): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: EMBEDDED_USER, password, database: 'postgres' })
  try {
    await client.connect()
    return true
  } catch (err) {
    if ((err as { code?: unknown }).code === INVALID_PASSWORD) return false
    throw err
  } finally {
    await client.end().catch(() => {})
  }
}
