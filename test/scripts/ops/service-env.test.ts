// Without DATA_DIR, ops reads the installed service's settings from the
// environment file its unit names (scripts/ops/service-env.ts); what the shell
// sets wins. That ops then finds the service's running gateway is tested in
// test/scripts/ops.test.ts.
import t from 'tap'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findEnvironmentFile, parseEnvironmentFile, withServiceEnvironment } from '../../../scripts/ops/service-env.ts'
import { renderServiceFiles } from '../../../scripts/ops/install-service.ts'

const dir = await mkdtemp(join(tmpdir(), 'tg-service-env-'))
t.teardown(async () => await rm(dir, { recursive: true, force: true }))
const unitFile = join(dir, 'testnet-gateway.service')
const envFile = join(dir, 'custom.env')
const defaultEnvFile = join(dir, 'default.env')
const nowhere = join(dir, 'absent')

t.test('parseEnvironmentFile() reads NAME=value lines, skips comments and drops quotes', async (t) => {
  t.same(parseEnvironmentFile('# c\n; c\n\nDATA_DIR=/var/lib/x\n  PORT = 4001 \nA="quoted value"\nB=\'single\'\nnot a line\nEMPTY=\n'),
    [['DATA_DIR', '/var/lib/x'], ['PORT', '4001'], ['A', 'quoted value'], ['B', 'single'], ['EMPTY', '']])
})

t.test('findEnvironmentFile() takes the unit\'s EnvironmentFile=, optional ("-") or not', async (t) => {
  t.equal(findEnvironmentFile('[Service]\nEnvironmentFile=/etc/a.env\n'), '/etc/a.env')
  t.equal(findEnvironmentFile('[Service]\nEnvironmentFile=-/etc/b.env\n'), '/etc/b.env')
  t.equal(findEnvironmentFile('[Service]\nUser=x\n'), undefined)
})

t.test('install-service\'s own files are read back: DATA_DIR and the service\'s caches', async (t) => {
  const files = renderServiceFiles({ user: 'testnet', dataDir: '/var/lib/testnet-gateway', cacheDir: '/var/cache/testnet-gateway', gethBin: '/usr/local/lib/testnet-gateway/geth', envFile, checkout: '/opt/testnet-gateway', node: '/usr/bin/node' })
  t.equal(findEnvironmentFile(files.unit), envFile)
  const env = Object.fromEntries(parseEnvironmentFile(files.env))
  t.equal(env.DATA_DIR, '/var/lib/testnet-gateway')
  t.equal(env.GETH_BIN, '/usr/local/lib/testnet-gateway/geth')
})

t.test('withServiceEnvironment(): without DATA_DIR the unit\'s environment file fills what the shell leaves unset', async (t) => {
  await writeFile(unitFile, `[Service]\nEnvironmentFile=${envFile}\n`)
  await writeFile(envFile, 'DATA_DIR=/var/lib/service\nDATABASE_URL=postgres://svc@db/x\nLOG_LEVEL=info\n')
  const read = await withServiceEnvironment({ LOG_LEVEL: 'warn', DATABASE_URL: '' }, { unitFile, envFile: defaultEnvFile })
  t.equal(read.file, envFile)
  t.equal(read.env.DATA_DIR, '/var/lib/service')
  t.equal(read.env.DATABASE_URL, 'postgres://svc@db/x', 'an empty variable is unset')
  t.equal(read.env.LOG_LEVEL, 'warn', 'the shell wins')

  const given = await withServiceEnvironment({ DATA_DIR: '/elsewhere' }, { unitFile, envFile: defaultEnvFile })
  t.same(given, { env: { DATA_DIR: '/elsewhere' }, file: undefined }, 'DATA_DIR given by hand: the service is not asked')
})

t.test('withServiceEnvironment(): no unit means the default environment file; neither means nothing changes', async (t) => {
  await writeFile(defaultEnvFile, 'DATA_DIR=/var/lib/default\n')
  const fallback = await withServiceEnvironment({}, { unitFile: nowhere, envFile: defaultEnvFile })
  t.same(fallback, { env: { DATA_DIR: '/var/lib/default' }, file: defaultEnvFile })
  t.same(await withServiceEnvironment({ PORT: '1' }, { unitFile: nowhere, envFile: nowhere }), { env: { PORT: '1' }, file: undefined })
  await writeFile(unitFile, '[Service]\nEnvironmentFile=-/nonexistent/x.env\n')
  t.same(await withServiceEnvironment({}, { unitFile, envFile: defaultEnvFile }), { env: {}, file: undefined }, 'the unit\'s file is missing')
})

t.test('withServiceEnvironment(): an environment file ops may not read stops it with what to do', { skip: process.getuid?.() === 0 ? 'root reads every file' : false }, async (t) => {
  await writeFile(unitFile, `[Service]\nEnvironmentFile=${envFile}\n`)
  await writeFile(envFile, 'DATA_DIR=/var/lib/service\n')
  await chmod(envFile, 0o000)
  await t.rejects(withServiceEnvironment({}, { unitFile, envFile: defaultEnvFile }), /cannot read .*custom\.env.*set DATA_DIR/)
})
