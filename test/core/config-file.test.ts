// DATA_DIR/config.json: instance settings under the environment's names, overridden by the environment.
import t from 'tap'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../core/config.ts'

const dataDir = await mkdtemp(join(tmpdir(), 'tg-config-file-'))
t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
const file = join(dataDir, 'config.json')

t.test('loadConfig() reads DATA_DIR/config.json; the environment overrides it', async (t) => {
  t.equal(loadConfig({ DATA_DIR: dataDir }).graphql.enabled, true, 'no file: the defaults')
  await writeFile(file, JSON.stringify({ GRAPHQL_ENABLED: false, GRAPHQL_MAX_DEPTH: 7, PORT: '4100' }))
  const config = loadConfig({ DATA_DIR: dataDir })
  t.equal(config.graphql.enabled, false)
  t.equal(config.graphql.maxDepth, 7)
  t.equal(config.port, 4100)
  t.equal(loadConfig({ DATA_DIR: dataDir, GRAPHQL_ENABLED: 'true' }).graphql.enabled, true, 'the environment wins')
  t.equal(loadConfig({ DATA_DIR: dataDir, GRAPHQL_ENABLED: '' }).graphql.enabled, false, 'an empty variable is unset: the file applies')
})

t.test('loadConfig() stops on a bad config file, naming the file or the variable', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['{"GRAPHQL_ENABLED": fals', /config\.json is not JSON/],
    ['[1]', /config\.json must hold a JSON object/],
    ['{"GRAPHQL_ON": true}', /config\.json: unknown setting "GRAPHQL_ON"/],
    ['{"DATA_DIR": "/elsewhere"}', /unknown setting "DATA_DIR"/],
    ['{"PORT": {"n": 1}}', /PORT must be a string, number or boolean/],
    ['{"GRAPHQL_ENABLED": "sometimes"}', /GRAPHQL_ENABLED must be boolean \(got "sometimes"\)/]
  ]
  for (const [text, message] of cases) {
    await writeFile(file, text)
    t.throws(() => loadConfig({ DATA_DIR: dataDir }), { code: 'GW_ERR_CONFIG_INVALID', message }, text)
  }
})
