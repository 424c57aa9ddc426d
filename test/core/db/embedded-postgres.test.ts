// With DATABASE_URL unset, openDatabase() starts embedded PostgreSQL in the data directory.
import t from 'tap'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { bindDatabaseToChain, openDatabase } from '../../../core/db/index.ts'

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
  t.same(migrations, ['2026_11_21_0_chain_meta'])
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
