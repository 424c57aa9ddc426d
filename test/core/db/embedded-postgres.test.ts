// With DATABASE_URL unset, openDatabase() starts embedded PostgreSQL in the data directory.
import t from 'tap'
import { chmod, mkdtemp, rm, stat, readFile, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { once } from 'node:events'
import pg from 'pg'
import { bindDatabaseToChain, openDatabase } from '../../../core/db/index.ts'
import { migrationSource } from '../../../core/db/migrations/index.ts'

const dataDir = await mkdtemp(join(tmpdir(), 'tg-embedded-'))
await chmod(dataDir, 0o755)
t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
const log = pino({ level: 'warn' })
const GENESIS = '0x' + '11'.repeat(32)

t.test('openDatabase() without a URL starts, migrates and keeps embedded PostgreSQL', async (t) => {
  const first = await openDatabase({ url: undefined, dataDir, log })
  t.ok(first.embedded, 'embedded PostgreSQL was started')
  t.match(first.url, /^postgres:\/\/postgres:[0-9a-f]{64}@127\.0\.0\.1:\d+\/gateway$/, 'a random superuser password')
  const migrations = await first.knex('knex_migrations').pluck('name')
  const names = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m))
  t.same(migrations, names, 'every migration applied, in order')
  t.same(names.slice(0, 3), ['2026_11_21_0_chain_meta', '2026_11_21_1_chain_data', '2026_11_21_2_tokens_addresses'])
  await bindDatabaseToChain(first.knex, 793788, GENESIS)
  await first.close()

  const second = await openDatabase({ url: undefined, dataDir, log })
  t.teardown(async () => await second.close())
  const row = await second.knex('chain_meta').first('chain_id')
  t.equal(row.chain_id, 793788, 'the data survives a restart')
  await bindDatabaseToChain(second.knex, 793788, GENESIS)
  await t.rejects(bindDatabaseToChain(second.knex, 793788, '0x' + '22'.repeat(32)), { code: 'GW_ERR_DATABASE_CHAIN_MISMATCH' },
    'a database of another chain is refused')
})

t.test('a PostgreSQL orphaned by a gateway killed with -9 is stopped and the data reopened', async (t) => {
  const script = `
    import { openDatabase } from ${JSON.stringify(new URL('../../../core/db/index.ts', import.meta.url).href)}
    import pino from 'pino'
    const db = await openDatabase({ url: undefined, dataDir: ${JSON.stringify(dataDir)}, log: pino({ level: 'warn' }) })
    await db.knex.raw("create table if not exists orphan_check (n int)")
    await db.knex('orphan_check').insert({ n: 7 })
    console.log('ready')
    setInterval(() => {}, 1000)`
  const child = spawn('node', ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  for await (const line of createInterface({ input: child.stdout })) if (line === 'ready') break
  const exited = once(child, 'exit')
  child.kill('SIGKILL')
  await exited
  const reopened = await openDatabase({ url: undefined, dataDir, log })
  t.teardown(async () => await reopened.close())
  t.same(await reopened.knex('orphan_check').pluck('n'), [7], 'the committed row is there')
})

/** Whether the embedded server at `url` lets the superuser in with `password`. */
async function accepts (url: string, password: string): Promise<boolean> {
  const withPassword = new URL(url)
  withPassword.password = password
  const client = new pg.Client({ connectionString: withPassword.href })
  try {
    await client.connect()
    return true
  } catch (err) {
    if ((err as { code?: string }).code === '28P01') return false
    throw err
  } finally {
    await client.end().catch(() => {})
  }
}

const passwordFile = join(dataDir, 'postgres.password')

t.test('the superuser password is random, kept in DATA_DIR/postgres.password (0600), and the old constant is refused', async (t) => {
  const db = await openDatabase({ url: undefined, dataDir, log })
  t.teardown(async () => await db.close())
  const kept = (await readFile(passwordFile, 'utf8')).trim()
  t.match(kept, /^[0-9a-f]{64}$/)
  t.equal((await stat(passwordFile)).mode & 0o777, 0o600, 'readable by its owner only')
  t.ok(db.url.includes(`:${kept}@`), 'the gateway connects with it')
  t.ok(await accepts(db.url, kept))
  t.notOk(await accepts(db.url, 'postgres'), 'the password `postgres` is refused')
})

t.test('a cluster made with the old constant password gets a random one on its next start, its data kept', async (t) => {
  // The state a data directory of an earlier version is in: the password `postgres` and no password file.
  const current = await openDatabase({ url: undefined, dataDir, log })
  await current.knex.raw("alter role postgres with password 'postgres'")
  await current.knex.raw('create table if not exists legacy_check (n int)')
  await current.knex('legacy_check').insert({ n: 12 })
  await current.close()
  await unlink(passwordFile)

  const migrated = await openDatabase({ url: undefined, dataDir, log })
  t.teardown(async () => await migrated.close())
  const kept = (await readFile(passwordFile, 'utf8')).trim()
  t.match(kept, /^[0-9a-f]{64}$/, 'a new random password is kept')
  t.equal((await stat(passwordFile)).mode & 0o777, 0o600)
  t.ok(migrated.url.includes(`:${kept}@`))
  t.same(await migrated.knex('legacy_check').pluck('n'), [12], 'the data is there')
  t.notOk(await accepts(migrated.url, 'postgres'), 'the old password no longer works')
  t.ok(await accepts(migrated.url, kept))
})

t.test('a DATA_DIR that does not exist, nor its parent, is made (no access for others) before the password is written into it', async (t) => {
  const fresh = join(dataDir, 'no-such-parent', 'data')
  const db = await openDatabase({ url: undefined, dataDir: fresh, log })
  t.teardown(async () => await db.close())
  t.ok(db.embedded, 'embedded PostgreSQL started')
  t.match((await readFile(join(fresh, 'postgres.password'), 'utf8')).trim(), /^[0-9a-f]{64}$/, 'the password is kept in it')
  // As root the search bit is added for the `postgres` user that runs the server; nothing else.
  t.equal((await stat(fresh)).mode & 0o076, 0, 'neither group nor others may read or write it')
})
