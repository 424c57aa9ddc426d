// `npm start` on a machine that has never built Geth: the build (here slowed
// past Fastify's plugin timeout by a `go` wrapper that waits before running
// the real Go) happens before the app is built, so the first start serves.
import t from 'tap'
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { cachedGethPath } from '../../geth/install.ts'
import { createTestChainFiles } from '../support/chain.ts'
import { createTestDatabase } from '../support/database.ts'
import { startGatewayProcess } from '../support/gateway-process.ts'

// Fastify's default plugin timeout is 10 s; the wrapper waits longer than that before Go starts.
const GO_DELAY_S = 11

const realGo = (await execa('sh', ['-c', 'command -v go'], { reject: false })).stdout.trim()

t.test('a first start builds Geth for longer than any plugin timeout, then serves and stays up', {
  // Reported as a skip, not a pass: without Go the first-start build cannot run here.
  skip: realGo === '' ? 'no go on PATH, so the first-start build cannot run here' : false
}, async (t) => {
  const scratch = await mkdtemp(join(tmpdir(), 'tg-first-start-'))
  t.teardown(async () => await rm(scratch, { recursive: true, force: true }))
  const wrapperDir = join(scratch, 'bin')
  const cacheDir = join(scratch, 'cache')
  await execa('mkdir', ['-p', wrapperDir, cacheDir])
  await writeFile(join(wrapperDir, 'go'), `#!/bin/sh\nif [ "$1" = install ]; then sleep ${GO_DELAY_S}; fi\nexec ${realGo} "$@"\n`)
  await chmod(join(wrapperDir, 'go'), 0o755)

  const chain = await createTestChainFiles(t)
  const gateway = await startGatewayProcess(t, {
    ...chain.env,
    DATABASE_URL: await createTestDatabase(t),
    // Nothing may short-cut the build: no GETH_BIN, an empty cache, our `go` first on PATH.
    GETH_BIN: '',
    GETH_CACHE_DIR: cacheDir,
    PATH: `${wrapperDir}:${process.env.PATH ?? ''}`
  }, { servingTimeoutMs: 240_000 })

  t.ok(gateway.lines.some((l) => l.msg === 'Geth built and cached'), 'Geth was built by this start')
  t.equal((await gateway.health()).status, 200, '/health answers 200')
  await new Promise((resolve) => setTimeout(resolve, 2000))
  t.equal((await gateway.health()).status, 200, 'and still does: the process stayed up')
  t.ok((await readdir(join(cacheDir, 'geth-v1.13.15'))).includes('geth'), 'the binary is in the cache')
  t.equal(cachedGethPath(cacheDir), join(cacheDir, 'geth-v1.13.15', 'geth'))
})
