// `npm run ops -- install-service` writes a sandboxed unit systemd accepts, an
// environment file that keeps data and caches apart, and a Geth the service
// user can run.
import t from 'tap'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'
import { runOps } from '../../support/gateway-process.ts'
// @ts-expect-error plain JavaScript without declarations: it runs before anything is compiled
import { sourceFingerprint } from '../../../scripts/launch.mjs'
import { START_LIMIT_BURST, START_LIMIT_INTERVAL_S, STOP_TIMEOUT_S, renderServiceFiles, serviceExecStart } from '../../../scripts/ops/install-service.ts'

const SHUTDOWN_GRACE_S = 30 // scripts/start.ts
/** The bar for `systemd-analyze security` (0 safe .. 10 exposed); the old unit rated 8.7. */
const MAX_EXPOSURE = 5

const dir = await mkdtemp(join(tmpdir(), 'tg-service-'))
t.teardown(async () => await rm(dir, { recursive: true, force: true }))
const unitFile = join(dir, 'testnet-gateway.service')
const envFile = join(dir, 'etc', 'testnet-gateway.env')
const dataDir = join(dir, 'data')
const cacheDir = join(dir, 'cache')
const gethDir = join(dir, 'lib')
// The current user exists, so systemd-analyze can check User= too.
const user = userInfo().username
const result = await runOps(['install-service', '--user', user, '--data-dir', dataDir, '--cache-dir', cacheDir, '--geth-dir', gethDir, '--unit-file', unitFile, '--environment-file', envFile], { DATA_DIR: dataDir })

/** The unit's settings by section; a key given twice keeps every value. */
function readUnit (text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>()
  let section = new Map<string, string[]>()
  for (const line of text.split('\n')) {
    const header = /^\[(\w+)\]$/.exec(line)
    if (header !== null) sections.set(header[1]!, section = new Map())
    const setting = /^(\w+)=(.*)$/.exec(line)
    if (setting !== null) section.set(setting[1]!, [...(section.get(setting[1]!) ?? []), setting[2]!])
  }
  return sections
}

t.test('install-service copies Geth for the service, writes the unit and the environment file and prints how to enable them', async (t) => {
  t.equal(result.exitCode, 0, result.stderr)
  t.match(result.stdout, new RegExp(`copied \\S+/geth to ${join(gethDir, 'geth')}`))
  t.match(result.stdout, `wrote ${unitFile}`)
  t.match(result.stdout, `useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin ${user}`, 'no home: no skeleton dotfiles in the data')
  t.match(result.stdout, `install -d -m 0700 -o ${user} -g ${user} ${dataDir} ${cacheDir}`)
  t.match(result.stdout, 'systemctl enable --now testnet-gateway')
  t.match(result.stdout, 'journalctl -u testnet-gateway')
  const env = await readFile(envFile, 'utf8')
  t.match(env, `DATA_DIR=${dataDir}\n`)
  t.match(env, `GETH_CACHE_DIR=${cacheDir}\n`, 'caches apart from the data')
  t.match(env, `SOLC_CACHE_DIR=${join(cacheDir, 'solc')}\n`)
  t.match(env, `GETH_BIN=${join(gethDir, 'geth')}\n`, 'the service never needs Go')
  t.match(env, 'HOST=0.0.0.0\n')
  t.equal((await stat(envFile)).mode & 0o777, 0o640, 'not readable by others: it may hold secrets')
  t.equal((await stat(join(gethDir, 'geth'))).mode & 0o777, 0o755, 'any user runs the copy')
  t.match(String((await execa(join(gethDir, 'geth'), ['version'])).stdout), /^Version: 1\.13\.15/m)
  const checkout = fileURLToPath(new URL('../../..', import.meta.url))
  t.equal((await readFile(join(checkout, 'dist', '.source-fingerprint'), 'utf8')).trim(), (sourceFingerprint as (root: string) => string)(checkout),
    'dist/ is compiled from these sources: the service, which may not write the checkout, starts on it')
})

t.test('without a built Geth install-service writes nothing and says to run geth:install', async (t) => {
  const empty = await mkdtemp(join(tmpdir(), 'tg-service-nogeth-'))
  t.teardown(async () => await rm(empty, { recursive: true, force: true }))
  const missing = await runOps(['install-service', '--data-dir', dataDir, '--cache-dir', cacheDir, '--geth-dir', join(empty, 'lib'), '--unit-file', join(empty, 'u.service'), '--environment-file', join(empty, 'e.env')],
    { DATA_DIR: dataDir, GETH_BIN: '', GETH_CACHE_DIR: empty, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` })
  t.equal(missing.exitCode, 1)
  t.match(missing.stderr, 'npm run geth:install')
  await t.rejects(stat(join(empty, 'u.service')), { code: 'ENOENT' })
})

t.test('the unit restarts on failure up to a start limit, raises LimitNOFILE, outwaits the shutdown grace and logs to journald', async (t) => {
  const unit = readUnit(await readFile(unitFile, 'utf8'))
  const service = unit.get('Service')!
  const one = (key: string): string | undefined => service.get(key)?.[0]
  t.equal(one('Restart'), 'on-failure')
  t.equal(Number(unit.get('Unit')!.get('StartLimitBurst')), START_LIMIT_BURST, 'in [Unit], where systemd reads it')
  t.equal(Number(unit.get('Unit')!.get('StartLimitIntervalSec')), START_LIMIT_INTERVAL_S)
  t.ok((START_LIMIT_BURST - 1) * Number(one('RestartSec')) < START_LIMIT_INTERVAL_S, 'a start that always fails reaches the limit')
  t.ok(Number(one('LimitNOFILE')) >= 65536)
  t.ok(Number(one('TimeoutStopSec')) > SHUTDOWN_GRACE_S)
  t.equal(Number(one('TimeoutStopSec')), STOP_TIMEOUT_S)
  t.equal(one('KillMode'), 'mixed', 'SIGTERM to the gateway alone, which stops its children in order')
  t.equal(one('StandardOutput'), 'journal')
  t.equal(one('User'), user)
  t.equal(one('EnvironmentFile'), envFile)
  t.equal(one('ExecStart'), serviceExecStart(process.execPath))
  t.match(one('ExecStart'), /node.* scripts\/launch\.mjs$/, 'the compiled dist/, as npm start serves it')
  t.equal(unit.get('Install')!.get('WantedBy')?.[0], 'multi-user.target')
})

t.test('the unit is sandboxed: read-only system but for the data and cache, private files, no privileges', async (t) => {
  const service = readUnit(await readFile(unitFile, 'utf8')).get('Service')!
  const expected: Record<string, string> = {
    UMask: '0077',
    ProtectSystem: 'strict',
    ReadWritePaths: `${dataDir} ${cacheDir}`,
    ProtectHome: 'true',
    PrivateTmp: 'true',
    PrivateDevices: 'true',
    NoNewPrivileges: 'true',
    CapabilityBoundingSet: '',
    ProtectKernelTunables: 'true',
    ProtectKernelModules: 'true',
    ProtectControlGroups: 'true',
    RestrictSUIDSGID: 'true',
    RestrictNamespaces: 'true',
    LockPersonality: 'true',
    SystemCallArchitectures: 'native'
  }
  for (const [key, value] of Object.entries(expected)) t.same(service.get(key), [value], key)
  t.notOk(service.has('MemoryDenyWriteExecute'), 'V8 writes the code it compiles')
  t.notMatch(service.get('SystemCallFilter')!.join(' '), '~@resources', 'Geth raises its open-files limit')
})

t.test('renderServiceFiles(): a checkout, Node or data under a home directory is bound into an empty ProtectHome tmpfs', async (t) => {
  const paths = { user: 'testnet', dataDir: '/var/lib/testnet-gateway', cacheDir: '/var/cache/testnet-gateway', gethBin: '/usr/local/lib/testnet-gateway/geth', envFile: '/etc/tg.env', checkout: '/opt/testnet-gateway', node: '/usr/bin/node' }
  t.same(readUnit(renderServiceFiles(paths).unit).get('Service')!.get('ProtectHome'), ['true'])
  const underHomes = readUnit(renderServiceFiles({ ...paths, checkout: '/home/ops/testnet-gateway', node: '/root/.nvm/versions/node/v20.18.1/bin/node', dataDir: '/home/ops/data' }).unit).get('Service')!
  t.same(underHomes.get('ProtectHome'), ['tmpfs'])
  t.same(underHomes.get('BindReadOnlyPaths'), ['/home/ops/testnet-gateway /root/.nvm/versions/node/v20.18.1'])
  t.same(underHomes.get('BindPaths'), ['/home/ops/data'])
  t.same(underHomes.get('ReadWritePaths'), ['/home/ops/data /var/cache/testnet-gateway'])
})

/** systemd-analyze, or why this machine cannot run it. */
async function analyze (args: string[]): Promise<{ exitCode: number, stdout: string, stderr: string } | string> {
  const run = await execa('systemd-analyze', args, { reject: false })
  if ((run as { code?: string }).code === 'ENOENT') return 'systemd-analyze is not installed; the settings were checked above'
  return { exitCode: run.exitCode ?? -1, stdout: String(run.stdout), stderr: String(run.stderr) }
}

t.test('systemd-analyze verify accepts the unit where it exists', async (t) => {
  const verify = await analyze(['verify', unitFile])
  if (typeof verify === 'string') return t.comment(verify)
  t.equal(verify.exitCode, 0, verify.stderr)
  t.notMatch(verify.stderr, /testnet-gateway\.service:/, `no complaint about the unit: ${verify.stderr}`)
})

t.test(`systemd-analyze security rates the unit at most ${MAX_EXPOSURE} where it exists`, async (t) => {
  const security = await analyze(['security', '--offline=true', unitFile])
  if (typeof security === 'string') return t.comment(security)
  if (security.exitCode !== 0 && /offline/.test(security.stderr)) return t.comment(`this systemd-analyze cannot rate a unit file offline (systemd 250 or later can): ${security.stderr}`)
  const rating = /Overall exposure level for testnet-gateway\.service: (\d+(?:\.\d+)?)/.exec(security.stdout)?.[1]
  t.ok(rating, security.stdout.slice(-500) + security.stderr)
  t.comment(`exposure ${rating}`)
  t.ok(Number(rating) <= MAX_EXPOSURE, `exposure ${rating}`)
})
