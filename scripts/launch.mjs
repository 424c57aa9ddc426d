// `npm start`: serves the compiled JavaScript in dist/, compiling it first
// when it is missing or was built from other sources (the first start after
// `npm ci` or a `git pull`); later starts go straight to it. Production then
// runs no TypeScript loader, whose transform costs the proxy CPU on every
// request. Plain JavaScript because it runs before anything is compiled.
// `node scripts/launch.mjs --build` (npm run build) only compiles;
// `node scripts/launch.mjs scripts/bench/rpc.js` runs another compiled entry
// (a benchmark that must measure what production runs).
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import pino from 'pino'

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)))
const DIST = join(ROOT, 'dist')
const SOURCE_DIRS = ['core', 'geth', 'plugins', 'scripts']
const SOURCE_EXTENSIONS = ['.ts', '.json', '.graphql']
/** Files outside the source folders whose change changes what tsc emits. */
const BUILD_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json']
/** Read at run time beside the module that reads them, so copied next to their compiled module. */
const ASSETS = ['plugins/graphql/schema.graphql']
const FINGERPRINT_FILE = '.source-fingerprint'

// As core/logger.ts writes them (it is TypeScript, not compiled yet).
const log = pino({ level: process.env.LOG_LEVEL ?? 'info', base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }).child({ name: 'launch' })

/** Every source file's path, size and modification time, hashed: what dist/ was built from. */
export function sourceFingerprint (root = ROOT) {
  const hash = createHash('sha256')
  const add = (path) => {
    const { size, mtimeMs } = statSync(path)
    hash.update(`${relative(root, path)}\t${size}\t${mtimeMs}\n`)
  }
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name < b.name ? -1 : 1)) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext))) add(path)
    }
  }
  for (const dir of SOURCE_DIRS) walk(join(root, dir))
  for (const file of BUILD_FILES) add(join(root, file))
  return hash.digest('hex')
}

function builtFingerprint () {
  try {
    return readFileSync(join(DIST, FINGERPRINT_FILE), 'utf8').trim()
  } catch {
    return undefined
  }
}

/**
 * Compiles into a directory of its own and renames it to dist/ only when
 * whole: a start interrupted mid-build, or two starts at once, never leave a
 * half-built dist/ that a later start would trust.
 */
export function build (fingerprint) {
  const started = Date.now()
  log.info('compiling the sources into dist/ (first start after an install or update; later starts skip this)')
  const staging = `${DIST}.build-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const result = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', staging], { cwd: ROOT, encoding: 'utf8' })
  if (!existsSync(join(staging, 'scripts', 'start.js'))) {
    rmSync(staging, { recursive: true, force: true })
    throw new Error(`compiling the sources failed:\n${result.stdout}${result.stderr}${result.error?.message ?? ''}`)
  }
  // Type errors still emit JavaScript; `npm run lint` is where they fail.
  if (result.status !== 0) log.warn({ tsc: result.stdout.trim().split('\n').slice(0, 20) }, 'the sources have type errors; serving what they compile to')
  for (const asset of ASSETS) cpSync(join(ROOT, asset), join(staging, asset))
  writeFileSync(join(staging, FINGERPRINT_FILE), fingerprint + '\n')
  rmSync(DIST, { recursive: true, force: true })
  try {
    renameSync(staging, DIST)
  } catch (err) {
    rmSync(staging, { recursive: true, force: true })
    // Another start renamed its build first: the same sources, so the same output.
    if (builtFingerprint() !== fingerprint) throw err
  }
  log.info({ elapsed_s: Math.round((Date.now() - started) / 100) / 10 }, 'compiled into dist/')
}

export function buildIfStale () {
  const fingerprint = sourceFingerprint()
  if (builtFingerprint() === fingerprint) return false
  try {
    build(fingerprint)
  } catch (err) {
    // A service whose sandbox keeps the checkout read-only, after an update.
    if (['EACCES', 'EPERM', 'EROFS'].includes(err.code)) throw new Error(`dist/ was compiled from other sources, and this user may not write ${ROOT}: run \`npm run build\` there as its owner (after every update), then start again`)
    throw err
  }
  return true
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes('--build')) build(sourceFingerprint())
    else {
      buildIfStale()
      const entry = process.argv[2] ?? 'scripts/start.js'
      await import(pathToFileURL(join(DIST, entry)).href)
    }
  } catch (err) {
    log.fatal({ err }, err.message)
    process.exitCode = 1
  }
}
