// npm test's pretest step: rebuilds tap's test class when .taprc's plugins are
// not the ones it was built with. A fresh `npm ci` installs tap's default
// build (with @tapjs/typescript, which loads ts-node into every test process,
// and the plugins .taprc leaves out); tap rebuilds it itself during a run, but
// too late for that run, whose test processes still take the old build's
// loaders: about a second of CPU per test file, over the whole first run.
import { spawnSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { TapConfig } from '@tapjs/config'

const config = await TapConfig.load()
const built = await readFile(new URL(import.meta.resolve('@tapjs/test/test-built')), 'utf8')
const signature = /export const signature = `([^`]*)`/.exec(built)?.[1]?.trim()
if (signature !== config.pluginSignature) {
  const tap = fileURLToPath(new URL('run.mjs', import.meta.resolve('tap')))
  const { status } = spawnSync(process.execPath, [tap, 'build'], { stdio: 'inherit' })
  process.exitCode = status ?? 1
}
