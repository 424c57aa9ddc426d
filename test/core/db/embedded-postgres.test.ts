// With DATABASE_URL unset, openDatabase() starts embedded PostgreSQL in the data directory.
import t from 'tap'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { once } from 'node:events'
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
  t.match(first.url, /^postgres:\/\/postgres:postgres@127\.0\.0\.1:\d+\/gateway$/)
  const migrations = await first.knex('knex_migrations').pluck('name')
  // Every migration of the list, in its order (the list grows as features land).
  const listed = (await migrationSource.getMigrations([])).map((m) => migrationSource.getMigrationName(m))
  t.same(migrations, listed)
  t.same(listed.slice(0, 3), ['2026_11_21_0_chain_meta', '2026_11_21_1_chain_data', '2026_11_21_2_tokens_addresses'])
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
