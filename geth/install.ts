// Finds a Geth 1.13 binary, or builds v1.13.15 from its Go module once and
// caches it outside the repository. v1.13.15 is the last release that seals
// clique blocks; nothing on npm or in Debian ships it, so Go builds it.
import { access, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises'
import { constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { execa } from 'execa'
import type { Logger } from '../core/logger.ts'
import { GethBuildFailedError, GethNotFoundError } from '../core/errors.ts'

export const GETH_VERSION = '1.13.15'
const GETH_MODULE = `github.com/ethereum/go-ethereum/cmd/geth@v${GETH_VERSION}`
const LOCK_POLL_MS = 1000
const PROGRESS_EVERY_PACKAGES = 25

export type FindGethOptions = {
  bin: string | undefined
  cacheDir: string
  log: Logger
  /** PATH and Go's settings, from config.childEnv. */
  env: Readonly<Record<string, string>>
  /** Ends a build under way (SIGINT on a first start): nothing half-built is left to be trusted. */
  signal?: AbortSignal | undefined
}

/** `GETH_BIN`, then `geth` on PATH if it is 1.13, then the cache, then a build. */
export async function findGeth ({ bin, cacheDir, log, env, signal }: FindGethOptions): Promise<string> {
  const found = await findBuiltGeth({ bin, cacheDir, log, env })
  if (found !== undefined) return found
  await buildGeth({ cacheDir, log, env, signal })
  return cachedGethPath(cacheDir)
}

/** What findGeth finds without building: undefined when only a build would do (install-service copies what it finds). */
export async function findBuiltGeth ({ bin, cacheDir, log, env }: Omit<FindGethOptions, 'signal'>): Promise<string | undefined> {
  if (bin !== undefined) {
    const version = await readGethVersion(bin)
    if (version === undefined) throw new GethNotFoundError(`GETH_BIN=${bin} does not run as geth`)
    if (!version.startsWith('1.13.')) log.warn({ bin, version }, 'GETH_BIN is not Geth 1.13; clique sealing may not work')
    return bin
  }
  const onPath = await findOnPath('geth', env.PATH ?? '')
  if (onPath !== undefined && (await readGethVersion(onPath))?.startsWith('1.13.')) return onPath
  const cached = cachedGethPath(cacheDir)
  return await isExecutable(cached) ? cached : undefined
}

export function cachedGethPath (cacheDir: string): string {
  return join(cacheDir, `geth-v${GETH_VERSION}`, 'geth')
}

async function readGethVersion (bin: string): Promise<string | undefined> {
  const result = await execa(bin, ['version'], { reject: false, timeout: 15_000 })
  if (result.exitCode !== 0) return undefined
  return /^Version: (\S+)/m.exec(String(result.stdout))?.[1]
}

async function findOnPath (name: string, path: string): Promise<string | undefined> {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name)
    if (await isExecutable(candidate)) return candidate
  }
  return undefined
}

async function isExecutable (file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK)
    return (await stat(file)).isFile()
  } catch {
    return false
  }
}

/** Go 1.23+ refuses geth 1.13's memsize dependency's linkname; this flag lets it link. */
async function readGoLdflags (env: Readonly<Record<string, string>>): Promise<string[]> {
  const result = await execa('go', ['version'], { reject: false, env, extendEnv: false, timeout: 30_000 })
  if (result.exitCode !== 0 || result.failed) {
    throw new GethNotFoundError('install Go 1.21 or newer (https://go.dev/dl/) so Geth can be built, or set GETH_BIN to a Geth 1.13.x binary')
  }
  const match = /go(\d+)\.(\d+)/.exec(String(result.stdout))
  const minor = match ? Number(match[2]) : 0
  return Number(match?.[1]) === 1 && minor < 23 ? [] : ['-ldflags=-checklinkname=0']
}

/** Builds once even when several processes ask at the same time (a lock file beside the cache). */
export async function buildGeth ({ cacheDir, log, env, signal }: Omit<FindGethOptions, 'bin'>): Promise<void> {
  const target = cachedGethPath(cacheDir)
  const dir = join(cacheDir, `geth-v${GETH_VERSION}`)
  await mkdir(dir, { recursive: true })
  const ldflags = await readGoLdflags(env)
  const lock = await acquireLock(join(dir, 'build.lock'), target, log, signal)
  if (lock === 'built-by-another') return
  // Holding the lock, any other build directory is a dead build's half-written output.
  for (const name of await readdir(dir)) if (name.startsWith('build-')) await rm(join(dir, name), { recursive: true, force: true })
  const gobin = join(dir, `build-${process.pid}`)
  try {
    log.info({ module: GETH_MODULE, target }, 'building Geth once from its Go module (a few minutes)')
    const started = Date.now()
    const child = execa('go', ['install', '-v', '-trimpath', ...ldflags, GETH_MODULE], {
      env: { ...env, GOBIN: gobin, CGO_ENABLED: '1' },
      extendEnv: false,
      reject: false,
      all: true,
      ...(signal === undefined ? {} : { cancelSignal: signal })
    })
    let packages = 0
    let tail: string[] = []
    for await (const line of child.iterable({ from: 'all' })) {
      const text = String(line)
      tail = [...tail.slice(-20), text]
      if (text.startsWith('go: downloading')) continue
      packages++
      if (packages % PROGRESS_EVERY_PACKAGES === 0) log.info({ packages, elapsed_s: Math.round((Date.now() - started) / 1000) }, 'building Geth')
    }
    const result = await child
    signal?.throwIfAborted()
    if (result.exitCode !== 0) throw new GethBuildFailedError(tail.join('\n'))
    // Go writes the binary into a directory of this build's own; only a finished
    // build is renamed into place, so a build ended at any point (SIGINT, kill -9)
    // never leaves a file at the cached path that a later start would trust.
    await rename(join(gobin, 'geth'), target)
    log.info({ target, elapsed_s: Math.round((Date.now() - started) / 1000) }, 'Geth built and cached')
  } finally {
    await rm(gobin, { recursive: true, force: true })
    await unlink(lock).catch(() => {})
  }
}

async function acquireLock (lockFile: string, target: string, log: Logger, signal: AbortSignal | undefined): Promise<string | 'built-by-another'> {
  for (;;) {
    signal?.throwIfAborted()
    try {
      const handle = await open(lockFile, 'wx')
      await handle.writeFile(String(process.pid))
      await handle.close()
      return lockFile
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    if (await isExecutable(target)) return 'built-by-another'
    if (!(await isLockHolderAlive(lockFile))) {
      await unlink(lockFile).catch(() => {})
      continue
    }
    log.info({ lockFile }, 'another process is building Geth; waiting')
    await sleep(LOCK_POLL_MS * 5, undefined, { signal })
    if (await isExecutable(target)) return 'built-by-another'
  }
}

async function isLockHolderAlive (lockFile: string): Promise<boolean> {
  try {
    const handle = await open(lockFile, 'r')
    const pid = Number((await handle.readFile('utf8')).trim())
    await handle.close()
    // A lock just made may not hold its pid yet: young means alive.
    if (!Number.isInteger(pid) || pid <= 0) return Date.now() - (await stat(lockFile)).mtimeMs < 10_000
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
