// Fixture chains built once per tap run and cloned by every file that uses
// one: the first file to ask builds the template (a stopped Geth's data
// directory and its indexed PostgreSQL database) under a lock while the
// others wait; each file then gets a copy of its own (the directory copied to
// a temporary one, the database made by CREATE DATABASE ... TEMPLATE), so
// files stay independent and see the same contents as if they had built it.
// Templates live as long as the tap runner that started the files (they are
// never reused by a later run, which may run other code): .taprc's `after`
// step (drop-fixture-templates.ts) removes them. Outside tap, and with
// embedded PostgreSQL (no DATABASE_URL), there is no template: callers build
// the chain as before.
import { cp, chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Wallet } from 'ethers'
import { adminQuery, createScratchDatabase } from '../../core/db/scratch.ts'
import { buildOn, testConfig, type TestApp } from '../helper.ts'
import { testChainFilesIn } from './chain.ts'
import { TEMPLATE_DATABASE_PREFIX, TEMPLATE_DIR_PREFIX, processRunId } from './fixture-run.ts'

type Tap = { teardown (fn: () => unknown): void }

/** Building a chain of hundreds of transactions on a loaded machine. */
const BUILD_WAIT_MS = 15 * 60_000
const POLL_MS = 200

export type ChainTemplate<Meta> = { dataDir: string, database: string, meta: Meta }
/** A template's copy for one test file, removed at its teardown. */
export type TemplateClone<Meta> = { dataDir: string, databaseUrl: string, meta: Meta }

/** The tap runner's run, or undefined outside tap or without DATABASE_URL. */
function currentRun (): { id: string, dir: string, serverUrl: string } | undefined {
  const serverUrl = process.env.DATABASE_URL
  if (process.env.TAP !== '1' || serverUrl === undefined || serverUrl === '') return undefined
  const id = processRunId(process.ppid)
  return id === undefined ? undefined : { id, dir: join(tmpdir(), TEMPLATE_DIR_PREFIX + id), serverUrl }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * The run's template `name`: built here by `build(dataDir, databaseUrl)` (which
 * leaves the chain stopped and returns what callers need to know of it) if no
 * other file has, or awaited if one is building it. Undefined outside a tap run
 * with DATABASE_URL: the caller builds its chain itself.
 */
export async function chainTemplate<Meta> (name: string, build: (dataDir: string, databaseUrl: string) => Promise<Meta>): Promise<ChainTemplate<Meta> | undefined> {
  const run = currentRun()
  if (run === undefined) return undefined
  await mkdir(run.dir, { recursive: true })
  const manifest = join(run.dir, `${name}.json`)
  const lock = join(run.dir, `${name}.lock`)
  const deadline = Date.now() + BUILD_WAIT_MS
  while (Date.now() < deadline) {
    const ready = await readFile(manifest, 'utf8').catch(() => undefined)
    if (ready !== undefined) return JSON.parse(ready) as ChainTemplate<Meta>
    if (await mkdir(lock).then(() => true, () => false)) {
      await writeFile(join(lock, 'pid'), String(process.pid))
      try {
        const template = await buildTemplate(run, name, build)
        await writeFile(manifest, JSON.stringify(template))
        return template
      } finally {
        await rm(lock, { recursive: true, force: true })
      }
    }
    // A builder that died (a file killed by its timeout) leaves its lock: take it over.
    const owner = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => '0'))
    if (owner > 0 && !isAlive(owner)) await rm(lock, { recursive: true, force: true })
    await sleep(POLL_MS)
  }
  throw new Error(`fixture template ${name} was not built within ${BUILD_WAIT_MS} ms`)
}

async function buildTemplate<Meta> (run: { id: string, dir: string, serverUrl: string }, name: string,
  build: (dataDir: string, databaseUrl: string) => Promise<Meta>): Promise<ChainTemplate<Meta>> {
  const dataDir = join(run.dir, name)
  const database = `${TEMPLATE_DATABASE_PREFIX}${name}_${run.id}`
  await rm(dataDir, { recursive: true, force: true })
  await mkdir(dataDir)
  await chmod(dataDir, 0o755)
  await adminQuery(run.serverUrl, `drop database if exists ${database} with (force)`)
  await adminQuery(run.serverUrl, `create database ${database}`)
  const url = new URL(run.serverUrl)
  url.pathname = `/${database}`
  try {
    const meta = await build(dataDir, url.toString())
    // A copy needs a template nobody is connected to.
    await adminQuery(run.serverUrl, 'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database])
    return { dataDir, database, meta }
  } catch (err) {
    await adminQuery(run.serverUrl, `drop database if exists ${database} with (force)`).catch(() => {})
    await rm(dataDir, { recursive: true, force: true })
    throw err
  }
}

/** A copy of the template for this file: its own data directory and database, removed at teardown. */
export async function cloneTemplate<Meta> (t: Tap, template: ChainTemplate<Meta>): Promise<TemplateClone<Meta>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-data-'))
  await chmod(dataDir, 0o755)
  t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
  await cp(template.dataDir, dataDir, { recursive: true })
  const database = await createScratchDatabase(process.env.DATABASE_URL!, 'tg_test', { template: template.database })
  t.teardown(database.drop)
  return { dataDir, databaseUrl: database.url, meta: template.meta }
}

/** Runs `fn` with teardowns of its own, run (last first) when it ends: a template outlives the file that builds it. */
export async function withTeardowns<T> (fn: (t: Tap) => Promise<T>): Promise<T> {
  const teardowns: Array<() => unknown> = []
  try {
    return await fn({ teardown: (teardown) => { teardowns.push(teardown) } })
  } finally {
    for (const teardown of teardowns.reverse()) await teardown()
  }
}

/** build() on a template's data directory (GENESIS_ALLOC in its alloc.json) and database, or on a clone's. */
export async function buildOnTemplate (t: Tap, { dataDir, databaseUrl }: { dataDir: string, databaseUrl: string }, account: Wallet): Promise<TestApp> {
  const chain = testChainFilesIn(dataDir, join(dataDir, 'alloc.json'), account)
  return await buildOn(t, { config: testConfig(chain, databaseUrl), chain })
}
