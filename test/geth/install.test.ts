// A first Geth build ended part-way (SIGINT, or kill -9 of the gateway) leaves
// nothing at the cached path that a later start would trust, and the next
// build takes over. `go` here is a stand-in that writes half a binary into its
// GOBIN and then waits, so the build can be interrupted at the worst moment.
import t, { type Test } from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import pino from 'pino'
import { cachedGethPath, findGeth } from '../../geth/install.ts'
import { isProcessAlive } from '../../core/endpoints.ts'
import { createTestDatabase } from '../support/database.ts'
import { waitFor } from '../support/gateway-process.ts'

const REPO_ROOT = new URL('../../', import.meta.url).pathname

type FakeGo = { binDir: string, cacheDir: string, pidFile: string }

/** A `go` that answers `version` and, for `install`, writes `body` as GOBIN/geth and then does what `then` says. */
async function fakeGo (t: Test, body: string, then: 'wait' | 'finish'): Promise<FakeGo> {
  const scratch = await mkdtemp(join(tmpdir(), 'tg-fake-go-'))
  t.teardown(async () => await rm(scratch, { recursive: true, force: true }))
  const binDir = join(scratch, 'bin')
  const cacheDir = join(scratch, 'cache')
  const pidFile = join(scratch, 'go.pid')
  await mkdir(binDir)
  await writeFile(join(binDir, 'go'), [
    '#!/bin/sh',
    'if [ "$1" = version ]; then echo "go version go1.26.8 linux/amd64"; exit 0; fi',
    `echo $$ > ${pidFile}`,
    'mkdir -p "$GOBIN"',
    `printf '%s' '${body}' > "$GOBIN/geth"`,
    'chmod +x "$GOBIN/geth"',
    then === 'wait' ? 'exec sleep 120' : 'exit 0'
  ].join('\n') + '\n')
  await chmod(join(binDir, 'go'), 0o755)
  return { binDir, cacheDir, pidFile }
}

/** `npm start`'s entry with the fake `go`, resolved once the build has begun and Go has written half a binary. */
async function startBuilding (t: Test, go: FakeGo) {
  const dataDir = await mkdtemp(join(tmpdir(), 'tg-data-'))
  t.teardown(async () => await rm(dataDir, { recursive: true, force: true }))
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: await createTestDatabase(t), PORT: '0', GETH_BIN: '', GETH_CACHE_DIR: go.cacheDir, PATH: `${go.binDir}:${process.env.PATH ?? ''}`, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const lines: string[] = []
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line))
  const goPid = await waitFor('the fake go to start', async () => {
    const pid = Number((await readFile(go.pidFile, 'utf8')).trim())
    return pid > 0 ? pid : undefined
  }, 60_000)
  t.teardown(() => { if (isProcessAlive(goPid)) process.kill(goPid, 'SIGKILL') })
  // Half a binary is in Go's output directory before the interruption.
  await waitFor('half a binary', async () => (await readdir(join(go.cacheDir, 'geth-v1.13.15'))).some((name) => name.startsWith('build-')) ? true : undefined)
  return { child, exited, lines, goPid }
}

t.test('SIGINT during a first build stops the build, exits 0 and leaves nothing to trust', async (t) => {
  const go = await fakeGo(t, 'half a geth', 'wait')
  const { child, exited, lines, goPid } = await startBuilding(t, go)
  child.kill('SIGINT')
  const [code] = await Promise.race([exited, sleep(20_000).then(() => { throw new Error('no exit 20 s after SIGINT') })])
  t.equal(code, 0, 'exit code 0')
  t.ok(lines.some((l) => l.includes('stopped before serving')), 'it says it stopped before serving')
  await waitFor('go to be ended', async () => isProcessAlive(goPid) ? undefined : true, 5000)
  t.notOk(isProcessAlive(goPid), 'the build was ended, not left running')
  t.same(await readdir(join(go.cacheDir, 'geth-v1.13.15')), [], 'no binary, build directory or lock is left in the cache')
})

t.test('kill -9 during a first build leaves no binary at the cached path, and the next build takes over', async (t) => {
  const go = await fakeGo(t, 'half a geth', 'wait')
  const { child, exited, goPid } = await startBuilding(t, go)
  child.kill('SIGKILL')
  await exited
  process.kill(goPid, 'SIGKILL')
  const target = cachedGethPath(go.cacheDir)
  await t.rejects(readFile(target), { code: 'ENOENT' }, 'nothing at the cached path')
  t.ok((await readdir(join(go.cacheDir, 'geth-v1.13.15'))).includes('build.lock'), 'the dead build left its lock')

  // The next build: the dead process's lock is taken over and a whole binary lands.
  const complete = await fakeGo(t, 'a whole geth', 'finish')
  const bin = await findGeth({ bin: undefined, cacheDir: go.cacheDir, log: pino({ level: 'silent' }), env: { PATH: `${complete.binDir}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '/' } })
  t.equal(bin, target)
  t.equal(await readFile(target, 'utf8'), 'a whole geth', 'the finished build is the one cached')
  t.same((await readdir(join(go.cacheDir, 'geth-v1.13.15'))).sort(), ['geth'], 'and only it')
})
