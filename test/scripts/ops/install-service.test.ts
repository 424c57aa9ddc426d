// `npm run ops -- install-service` writes a unit systemd accepts and an environment file.
import t from 'tap'
import { execa } from 'execa'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { runOps } from '../../support/gateway-process.ts'
import { STOP_TIMEOUT_S } from '../../../scripts/ops/install-service.ts'

const SHUTDOWN_GRACE_S = 30 // scripts/start.ts

const dir = await mkdtemp(join(tmpdir(), 'tg-service-'))
t.teardown(async () => await rm(dir, { recursive: true, force: true }))
const unitFile = join(dir, 'testnet-gateway.service')
const envFile = join(dir, 'etc', 'testnet-gateway.env')
// The current user exists, so systemd-analyze can check User= too.
const user = userInfo().username
const result = await runOps(['install-service', '--user', user, '--data-dir', join(dir, 'data'), '--unit-file', unitFile, '--environment-file', envFile], { DATA_DIR: join(dir, 'data') })

t.test('install-service writes the unit and the environment file and prints how to enable them', async (t) => {
  t.equal(result.exitCode, 0, result.stderr)
  t.match(result.stdout, `wrote ${unitFile}`)
  t.match(result.stdout, 'systemctl enable --now testnet-gateway')
  t.match(result.stdout, 'journalctl -u testnet-gateway')
  const env = await readFile(envFile, 'utf8')
  t.match(env, `DATA_DIR=${join(dir, 'data')}\n`)
  t.match(env, 'HOST=0.0.0.0\n')
  t.equal((await stat(envFile)).mode & 0o777, 0o640, 'not readable by others: it may hold secrets')
})

t.test('the unit restarts on failure, raises LimitNOFILE, outwaits the shutdown grace and logs to journald', async (t) => {
  const unit = await readFile(unitFile, 'utf8')
  const keys = new Map(unit.split('\n').filter((l) => /^\w+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
  t.equal(keys.get('Restart'), 'on-failure')
  t.ok(Number(keys.get('LimitNOFILE')) >= 65536)
  t.ok(Number(keys.get('TimeoutStopSec')) > SHUTDOWN_GRACE_S)
  t.equal(Number(keys.get('TimeoutStopSec')), STOP_TIMEOUT_S)
  t.equal(keys.get('KillMode'), 'mixed', 'SIGTERM to the gateway alone, which stops its children in order')
  t.equal(keys.get('StandardOutput'), 'journal')
  t.equal(keys.get('User'), user)
  t.equal(keys.get('EnvironmentFile'), envFile)
  t.match(keys.get('ExecStart'), /node.* --import tsx scripts\/start\.ts$/)
  t.equal(keys.get('WantedBy'), 'multi-user.target')
})

t.test('systemd-analyze verify accepts the unit where it exists', async (t) => {
  const analyze = await execa('systemd-analyze', ['verify', unitFile], { reject: false })
  if (analyze.failed && (analyze as { code?: string }).code === 'ENOENT') {
    t.comment('systemd-analyze is not installed; the keys were checked above')
    return
  }
  t.equal(analyze.exitCode, 0, analyze.stderr)
  t.notMatch(analyze.stderr, /testnet-gateway\.service:/, `no complaint about the unit: ${analyze.stderr}`)
})
