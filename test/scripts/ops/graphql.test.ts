// `npm run ops -- graphql on|off` edits DATA_DIR/config.json, which the gateway reads at start-up.
import t from 'tap'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../../core/config.ts'
import { parseOpsArgs } from '../../../scripts/ops/args.ts'
import { runOps } from '../../support/gateway-process.ts'

const dataDir = await mkdtemp(join(tmpdir(), 'tg-ops-graphql-'))
t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
const file = join(dataDir, 'config.json')
const env = { DATA_DIR: dataDir, GRAPHQL_ENABLED: '' }

t.test('parseOpsArgs() reads graphql on|off and refuses anything else', async (t) => {
  t.same(parseOpsArgs(['graphql', 'on']), { name: 'graphql', enabled: true })
  t.same(parseOpsArgs(['graphql', 'off']), { name: 'graphql', enabled: false })
  for (const argv of [['graphql'], ['graphql', 'maybe'], ['graphql', 'on', 'off'], ['graphql', 'off', '--from', '1']]) {
    t.throws(() => parseOpsArgs(argv), { code: 'GW_ERR_OPS_USAGE' }, argv.join(' '))
  }
})

t.test('graphql off, then on, keeps the other settings and tells to restart', async (t) => {
  await writeFile(file, JSON.stringify({ RPC_MAX_BATCH: 7 }))
  const off = await runOps(['graphql', 'off'], env)
  t.equal(off.exitCode, 0, off.stderr)
  t.equal(off.stdout, `GraphQL off in ${file}; no gateway runs on ${dataDir}: it applies at the next start`)
  t.same(JSON.parse(await readFile(file, 'utf8')), { RPC_MAX_BATCH: 7, GRAPHQL_ENABLED: false })
  t.equal(loadConfig({ DATA_DIR: dataDir }).graphql.enabled, false, 'the gateway reads it at start-up')
  t.equal(loadConfig({ DATA_DIR: dataDir }).rpcProxy.maxBatch, 7)

  const on = await runOps(['graphql', 'on'], env)
  t.equal(on.exitCode, 0)
  t.same(JSON.parse(await readFile(file, 'utf8')), { RPC_MAX_BATCH: 7, GRAPHQL_ENABLED: true })
  t.equal(loadConfig({ DATA_DIR: dataDir }).graphql.enabled, true)
})

t.test('graphql off warns when the environment overrides the file; a bad command line exits 2', async (t) => {
  const overridden = await runOps(['graphql', 'off'], { ...env, GRAPHQL_ENABLED: 'true' })
  t.equal(overridden.exitCode, 0)
  t.match(overridden.stdout, /warning: GRAPHQL_ENABLED in the environment overrides/)
  const bad = await runOps(['graphql', 'maybe'], env)
  t.equal(bad.exitCode, 2)
  t.match(bad.stderr, /graphql takes on or off/)
})
