// PgBouncer (session pooling, default settings otherwise) in front of a test
// database, as operators put it in front of an external PostgreSQL. Only
// where the pgbouncer binary is installed (Debian's package pgbouncer).
import { spawn } from 'node:child_process'
import { access, chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { findFreePort } from '../../core/net/free-port.ts'

type Tap = { teardown (fn: () => unknown): void }

const CANDIDATES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer']
const READY_TIMEOUT_MS = 10_000

export async function findPgBouncer (): Promise<string | undefined> {
  for (const path of CANDIDATES) {
    if (await access(path).then(() => true, () => false)) return path
  }
  return undefined
}

const listening = async (port: number): Promise<boolean> => await new Promise((resolve) => {
  const socket = connect(port, '127.0.0.1', () => { socket.end(); resolve(true) })
  socket.on('error', () => resolve(false))
})

/** Starts PgBouncer forwarding to `databaseUrl`'s server; resolves to the same database's URL through it. */
export async function startPgBouncer (t: Tap, binary: string, databaseUrl: string): Promise<string> {
  const target = new URL(databaseUrl)
  const dir = await mkdtemp(join(tmpdir(), 'tg-pgbouncer-'))
  t.teardown(async () => await rm(dir, { recursive: true, force: true }))
  // PgBouncer will not run as root: it switches to `nobody`, who must read its files.
  await chmod(dir, 0o755)
  const port = await findFreePort()
  const user = decodeURIComponent(target.username || 'postgres')
  await writeFile(join(dir, 'users.txt'), `"${user}" "${decodeURIComponent(target.password)}"\n`)
  await writeFile(join(dir, 'pgbouncer.ini'), [
    '[databases]',
    `* = host=${target.hostname} port=${target.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'users.txt')}`,
    'pool_mode = session',
    ''
  ].join('\n'))
  const asRoot = process.getuid?.() === 0
  const child = spawn(binary, [...(asRoot ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  t.teardown(() => { child.kill('SIGKILL') })
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (!await listening(port)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`pgbouncer did not start: ${stderr}`)
    await sleep(50)
  }
  const through = new URL(databaseUrl)
  through.hostname = '127.0.0.1'
  through.port = String(port)
  return through.toString()
}
