// The fixture templates (fixture-template.ts) on the machine's PostgreSQL: built
// once per tap run, each clone a copy of its own of the directory and database.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import pg from 'pg'
import { chainTemplate, cloneTemplate } from './fixture-template.ts'

const serverUrl = process.env.DATABASE_URL
const query = async (url: string, sql: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql)).rows
  } finally {
    await client.end()
  }
}

t.test('without DATABASE_URL there is no template: the caller builds its chain itself', async (t) => {
  t.teardown(() => { process.env.DATABASE_URL = serverUrl })
  delete process.env.DATABASE_URL
  t.equal(await chainTemplate('unused', async () => { throw new Error('not to be built') }), undefined)
})

t.test('a template is built once per run and every clone is a copy of its own', { skip: serverUrl === undefined || serverUrl === '' ? 'needs DATABASE_URL' : false }, async (t) => {
  // A name of this test's own: the template is the run's, and a rerun of this file in the same run must build afresh.
  const name = `selftest${randomBytes(4).toString('hex')}`
  let builds = 0
  const build = async (dataDir: string, databaseUrl: string) => {
    builds++
    await writeFile(join(dataDir, 'chain.txt'), 'template')
    await query(databaseUrl, 'create table blocks (n int); insert into blocks values (1), (2)')
    return { head: 2 }
  }
  const [first, second] = await Promise.all([chainTemplate(name, build), chainTemplate(name, build)])
  t.equal(builds, 1, 'built once, the second caller waited for it')
  t.same(first, second)
  t.same(first!.meta, { head: 2 })

  const [a, b] = [await cloneTemplate(t, first!), await cloneTemplate(t, first!)]
  t.not(a.dataDir, b.dataDir)
  t.not(a.databaseUrl, b.databaseUrl)
  await writeFile(join(a.dataDir, 'chain.txt'), 'changed')
  await query(a.databaseUrl, 'insert into blocks values (3)')
  t.equal(await readFile(join(b.dataDir, 'chain.txt'), 'utf8'), 'template', 'the other copy\'s directory is untouched')
  t.same(await query(b.databaseUrl, 'select n from blocks order by n'), [{ n: 1 }, { n: 2 }], 'and its database')
  t.equal(await readFile(join(first!.dataDir, 'chain.txt'), 'utf8'), 'template', 'and the template')
  t.equal(builds, 1)
})
