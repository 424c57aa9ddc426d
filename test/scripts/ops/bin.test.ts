// The operator command as docs/operations.md tells operators to run it:
// stdout holds the command's own output and nothing else, so that a script
// can capture it (a new API key). `npm run ops` cannot promise that: npm
// prints its banner on stdout before the script's.
import t from 'tap'
import { execa } from 'execa'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTestDatabase } from '../../support/database.ts'

const checkout = fileURLToPath(new URL('../../..', import.meta.url))
const databaseUrl = await createTestDatabase(t)
const dataDir = await mkdtemp(join(tmpdir(), 'tg-ops-bin-'))
t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
const env = { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'info' }

const KEY_CREATED = /^key \d+ \(([^,]+), premium\):\ntg_\S+\nShown once: only its hash is stored\.\n$/

t.test('npx testnet-gateway-ops keys create: stdout is the command\'s three lines, the key alone on the second', async (t) => {
  const result = await execa('npx', ['testnet-gateway-ops', 'keys', 'create', '--label', 'npx'], { cwd: checkout, env, reject: false, stripFinalNewline: false })
  t.equal(result.exitCode, 0, String(result.stderr))
  t.match(String(result.stdout), KEY_CREATED)
  t.equal(String(result.stdout).split('\n')[0], 'key 1 (npx, premium):')
})

t.test('npm run --silent ops -- keys create prints no banner either', async (t) => {
  const result = await execa('npm', ['run', '--silent', 'ops', '--', 'keys', 'create', '--label', 'silent'], { cwd: checkout, env, reject: false, stripFinalNewline: false })
  t.equal(result.exitCode, 0, String(result.stderr))
  t.match(String(result.stdout), KEY_CREATED)
  const plain = await execa('npm', ['run', 'ops', '--', 'keys', 'list'], { cwd: checkout, env, reject: false })
  t.match(String(plain.stdout), /^\s*> testnet-gateway@\S+ ops/, 'without --silent, npm\'s banner comes first (why the docs say npx)')
})

t.test('scripts/ops-bin.js runs from any directory, and `help` is the usage alone', async (t) => {
  const result = await execa(join(checkout, 'scripts', 'ops-bin.js'), ['help'], { cwd: dataDir, env, reject: false })
  t.equal(result.exitCode, 0, String(result.stderr))
  t.match(String(result.stdout), /^Usage: /)
  t.equal(String(result.stderr), '')
})
