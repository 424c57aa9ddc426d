// `npm run ops -- keys ...`: the command line, and each command run against a
// scratch database (runKeys is what scripts/ops.ts calls with it).
import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseOpsArgs } from '../../../scripts/ops/args.ts'
import { createTestDatabase } from '../../support/database.ts'

t.test('parseOpsArgs() reads the keys commands', async (t) => {
  t.same(parseOpsArgs(['keys', 'create', '--label', 'L']), { name: 'keys', action: 'create', label: 'L', tier: 'premium', limitPerMin: undefined })
  t.same(parseOpsArgs(['keys', 'create', '--label', 'L', '--tier', 'public', '--limit', '50']), { name: 'keys', action: 'create', label: 'L', tier: 'public', limitPerMin: 50 })
  t.same(parseOpsArgs(['keys', 'list']), { name: 'keys', action: 'list', json: false })
  t.same(parseOpsArgs(['keys', 'list', '--json']), { name: 'keys', action: 'list', json: true })
  t.same(parseOpsArgs(['keys', 'revoke', '7']), { name: 'keys', action: 'revoke', ref: '7' })
  t.same(parseOpsArgs(['keys', 'rotate', 'alice', '--grace', '3600']), { name: 'keys', action: 'rotate', ref: 'alice', graceSeconds: 3600 })
  for (const bad of [['keys'], ['keys', 'create'], ['keys', 'create', '--label', 'L', '--tier', 'gold'], ['keys', 'create', '--label', 'L', '--limit', '0'],
    ['keys', 'create', '--label', 'L', '--limit', '-3'], ['keys', 'revoke'], ['keys', 'list', '--grace', '1'], ['keys', 'create', '--label', 'L', '--json'], ['keys', 'rotate', 'a', '--grace', 'soon'], ['keys', 'drop', 'x']]) {
    t.throws(() => parseOpsArgs(bad), { code: 'GW_ERR_OPS_USAGE' }, bad.join(' '))
  }
})

t.test('npm run ops -- keys: create prints the key once, list never shows it, rotate and revoke take effect', async (t) => {
  const databaseUrl = await createTestDatabase(t)
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-keys-'))
  t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
  const ops = async (...args: string[]): Promise<string> => {
    const { stdout } = await promisify(execFile)('node', ['--import', 'tsx', 'scripts/ops.ts', ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'warn' } })
    return stdout
  }
  const created = await ops('keys', 'create', '--label', 'alice', '--limit', '50')
  const key = /^(tg_\S+)$/m.exec(created)?.[1]
  t.ok(key, 'the key is printed')
  t.match(created, 'key 1 (alice, premium, 50/min)')
  const listed = await ops('keys', 'list')
  t.match(listed, /^1\s+alice\s+premium\s+50\s/m)
  t.notOk(listed.includes(key!), 'the list never shows the key')
  const json = await ops('keys', 'list', '--json')
  t.notOk(json.includes(key!), 'nor does --json')
  const parsed = JSON.parse(json)
  t.same(parsed.map((k: Record<string, unknown>) => Object.keys(k).sort()),
    [['created_at', 'id', 'label', 'last_used_at', 'limit_per_min', 'rejections_today', 'requests_today', 'revoked_at', 'tier']])
  t.match(parsed[0], { id: '1', label: 'alice', tier: 'premium', limit_per_min: 50, last_used_at: null, revoked_at: null, requests_today: 0 })
  t.match(parsed[0].created_at, /^\d{4}-\d\d-\d\dT\S+Z$/)
  const rotated = await ops('keys', 'rotate', 'alice', '--grace', '60')
  t.match(rotated, 'key 2 replaces key 1 (alice)')
  t.notOk(rotated.includes(key!))
  t.match(await ops('keys', 'revoke', '2'), 'revoked key 2 (alice)')
  const after = await ops('keys', 'list')
  t.match(after, /^2\s+alice\s+premium\s+50\s.*\d{4}-\d\d-\d\dT\S+Z$/m, 'key 2 shows its revocation')
  await t.rejects(ops('keys', 'revoke', 'nobody'), /GW_ERR_API_KEY_NOT_FOUND/)
})
