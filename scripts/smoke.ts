// `npm run smoke`: the README's start command as a new user runs it. The
// checkout's files (as a clone would have them: no node_modules, dist/ or
// data/) are copied to a new folder, `npm ci` installs there, and `npm start`'s
// script runs twice: first with DATA_DIR unset (so ./data is made) and then
// with a DATA_DIR whose parent does not exist either. Each time: /health, one
// call per interface, SIGTERM; it must exit 0 and leave no Geth or PostgreSQL
// behind. The first start compiles dist/, the second must not. CI runs it
// after the tests.
// The script is run as npm runs it, but without npm in between: npm does not
// pass a SIGTERM sent to it on to the script (a service manager signals the
// whole process group, a terminal's Ctrl-C too), so its own exit code says
// nothing about the gateway's.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { pathExists } from '../core/fs/path-exists.ts'

const SERVING_TIMEOUT_MS = 600_000
const EXIT_TIMEOUT_MS = 40_000
const CHECKOUT = dirname(dirname(fileURLToPath(import.meta.url)))

const root = await mkdtemp(join(tmpdir(), 'tg-smoke-'))
// Embedded PostgreSQL runs as another user when started as root and must reach its directory.
await chmod(root, 0o755)
const clone = join(root, 'testnet-gateway')
const failures: string[] = []
try {
  await copyCheckout(clone)
  console.log(`npm ci in a copy of the checkout at ${clone}`)
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: clone, stdio: ['ignore', 'ignore', 'inherit'] })
  const first = await smokeStart('DATA_DIR unset', undefined, join(clone, 'data'))
  await check('the first start compiled dist/', async () => first.compiled && await pathExists(join(clone, 'dist', 'scripts', 'start.js')))
  const second = await smokeStart('DATA_DIR under a missing parent', join(root, 'no-such-parent', 'data'))
  await check('the second start did not compile again', async () => !second.compiled)
} catch (err) {
  failures.push((err as Error).message)
  console.log(`FAILED - ${(err as Error).message}`)
} finally {
  await rm(root, { recursive: true, force: true })
}
console.log(failures.length === 0 ? 'smoke test passed' : `smoke test failed: ${failures.join('; ')}`)
process.exit(failures.length === 0 ? 0 : 1)

/** The files a clone has: tracked ones and new ones not ignored, as in the working tree. */
async function copyCheckout (target: string): Promise<void> {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: CHECKOUT, encoding: 'utf8' }).split('\0').filter((file) => file !== '')
  await mkdir(target, { recursive: true })
  for (const file of files) {
    // A tracked file deleted in the working tree is not there to copy.
    if (await pathExists(join(CHECKOUT, file))) await cp(join(CHECKOUT, file), join(target, file), { recursive: false })
  }
}

/** Whether `test` holds within 30 s, asked every 250 ms. */
async function eventually (test: () => Promise<boolean>): Promise<boolean> {
  for (const deadline = Date.now() + 30_000; ; await sleep(250)) {
    if (await test()) return true
    if (Date.now() > deadline) return false
  }
}

async function check (name: string, run: () => Promise<boolean>): Promise<void> {
  const ok = await run().catch((err: unknown) => { console.log(`  ${name}: ${(err as Error).message}`); return false })
  console.log(`${ok ? 'ok' : 'FAILED'} - ${name}`)
  if (!ok) failures.push(name)
}

/** `npm start`'s script in the copy: serving, one call per interface, SIGTERM. */
async function smokeStart (label: string, dataDirSetting: string | undefined, dataDir = dataDirSetting!): Promise<{ compiled: boolean }> {
  console.log(`# npm start, ${label}`)
  const { DATABASE_URL: _external, GETH_RPC_URL: _node, DATA_DIR: _data, ...env } = process.env
  const started = Date.now()
  const packageJson = JSON.parse(await readFile(join(clone, 'package.json'), 'utf8')) as { scripts: { start: string } }
  const child = spawn('sh', ['-c', `exec ${packageJson.scripts.start}`], {
    cwd: clone,
    env: { ...env, ...(dataDirSetting === undefined ? {} : { DATA_DIR: dataDirSetting }), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  let base: string | undefined
  let compiled = false
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      const record = JSON.parse(line) as { health?: string, msg?: string, name?: string }
      if (typeof record.health === 'string') base = new URL(record.health).origin
      if (record.name === 'launch' && record.msg?.startsWith('compiled into dist/') === true) compiled = true
      if (record.msg !== undefined) console.log(`  gateway: ${record.msg}`)
    } catch {}
  })
  const get = async (path: string) => await fetch(base + path)
  const postJson = async (path: string, body: unknown): Promise<any> => {
    const response = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return response.ok ? await response.json() : { status: response.status }
  }
  try {
    // `base` is set by the log reader above.
    for (;;) {
      if (base !== undefined) break
      if (child.exitCode !== null) throw new Error(`the start script exited with ${child.exitCode} before serving (${label})`)
      if (Date.now() - started > SERVING_TIMEOUT_MS) throw new Error(`the start script did not serve in time (${label})`)
      await sleep(100)
    }
    console.log(`serving after ${((Date.now() - started) / 1000).toFixed(1)} s at ${base}`)
    await check('the data directory was made, for its owner only', async () => ((await stat(dataDir)).mode & 0o076) === 0)
    await check('/health answers 200', async () => (await get('/health')).status === 200)
    await check('JSON-RPC eth_chainId is 0xc1cbc', async () => (await postJson('/rpc', { jsonrpc: '2.0', id: 1, method: 'eth_chainId' })).result === '0xc1cbc')
    // The indexer takes its lock and reads the genesis just after the gateway serves: a first page may come a moment before it.
    await check('REST /api/v2/blocks lists the genesis', async () => await eventually(async () => {
      const body = await (await get('/api/v2/blocks?type=block')).json() as { items?: Array<{ height: number }> }
      return Array.isArray(body.items) && body.items.some((block) => block.height === 0)
    }))
    await check('GraphQL reads block 0', async () => await eventually(async () => (await postJson('/api/v2/graphql', { query: '{ block(number: 0) { number } }' })).data?.block?.number === 0))
    await check('Etherscan /api answers the coin supply', async () => {
      const body = await (await get('/api?module=stats&action=ethsupply')).json() as { status?: string, result?: string }
      return body.status === '1' && /^\d+$/.test(body.result ?? '')
    })
    await check('Stats API counters answer', async () => Array.isArray(((await (await get('/stats/api/v1/counters')).json()) as { counters?: unknown }).counters))
    await check('/api-docs answers', async () => (await get('/api-docs/json')).status === 200)
    await check('/metrics answers on loopback', async () => (await (await get('/metrics')).text()).includes('# TYPE'))
    child.kill('SIGTERM')
    const [code] = await Promise.race([exited, sleep(EXIT_TIMEOUT_MS).then(() => [null] as const)])
    await check('SIGTERM exits with code 0', async () => code === 0)
    await check('no Geth or PostgreSQL process is left behind', async () => (await processesUsing(dataDir)).length === 0)
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL')
    for (const pid of await processesUsing(dataDir)) process.kill(pid, 'SIGKILL')
  }
  return { compiled }
}

/** Processes whose command line names the data directory (Geth's --datadir, postgres -D). */
async function processesUsing (dir: string): Promise<number[]> {
  const pids: number[] = []
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')
    if (cmdline.includes(dir)) pids.push(Number(name))
  }
  return pids
}
