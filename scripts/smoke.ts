// `npm run smoke`: the README's start command as a new user runs it. `npm start`'s
// script on a fresh DATA_DIR with embedded PostgreSQL, then /health, one JSON-RPC
// call, one REST call and one GraphQL query, then SIGTERM: it must exit 0 and
// leave no Geth or PostgreSQL process behind. CI runs it after the tests.
// The script is run as npm runs it, but without npm in between: npm does not
// pass a SIGTERM sent to it on to the script (a service manager signals the
// whole process group, a terminal's Ctrl-C too), so its own exit code says
// nothing about the gateway's.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readdir, readFile, rm, chmod } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'

const SERVING_TIMEOUT_MS = 600_000
const EXIT_TIMEOUT_MS = 40_000

const dataDir = await mkdtemp(join(tmpdir(), 'tg-smoke-'))
// Embedded PostgreSQL runs as another user when started as root and must reach its directory.
await chmod(dataDir, 0o755)
const { DATABASE_URL: _external, GETH_RPC_URL: _node, ...env } = process.env
const started = Date.now()
const packageJson = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }
const child = spawn('sh', ['-c', `exec ${packageJson.scripts.start}`], { env: { ...env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] })
const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
let base: string | undefined
createInterface({ input: child.stdout! }).on('line', (line) => {
  try {
    const record = JSON.parse(line) as { health?: string, msg?: string }
    if (typeof record.health === 'string') base = new URL(record.health).origin
    if (record.msg !== undefined) console.log(`  gateway: ${record.msg}`)
  } catch {}
})

const failures: string[] = []
async function check (name: string, run: () => Promise<boolean>): Promise<void> {
  const ok = await run().catch((err: unknown) => { console.log(`  ${name}: ${(err as Error).message}`); return false })
  console.log(`${ok ? 'ok' : 'FAILED'} - ${name}`)
  if (!ok) failures.push(name)
}
async function postJson (path: string, body: unknown): Promise<any> {
  const response = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return response.ok ? await response.json() : { status: response.status }
}

try {
  // `base` is set by the log reader above.
  for (;;) {
    if (base !== undefined) break
    if (child.exitCode !== null) throw new Error(`the start script exited with ${child.exitCode} before serving`)
    if (Date.now() - started > SERVING_TIMEOUT_MS) throw new Error('the start script did not serve in time')
    await sleep(100)
  }
  console.log(`serving after ${((Date.now() - started) / 1000).toFixed(1)} s at ${base}`)
  await check('/health answers 200', async () => (await fetch(`${base}/health`)).status === 200)
  await check('JSON-RPC eth_chainId is 0xc1cbc', async () => (await postJson('/rpc', { jsonrpc: '2.0', id: 1, method: 'eth_chainId' })).result === '0xc1cbc')
  await check('REST /api/v2/blocks lists the genesis', async () => {
    const body = await (await fetch(`${base}/api/v2/blocks?type=block`)).json() as { items?: Array<{ height: number }> }
    return Array.isArray(body.items) && body.items.some((block) => block.height === 0)
  })
  await check('GraphQL reads block 0', async () => (await postJson('/api/v2/graphql', { query: '{ block(number: 0) { number } }' })).data?.block?.number === 0)
  child.kill('SIGTERM')
  const [code] = await Promise.race([exited, sleep(EXIT_TIMEOUT_MS).then(() => [null] as const)])
  await check('SIGTERM exits with code 0', async () => code === 0)
  await check('no Geth or PostgreSQL process is left behind', async () => (await processesUsing(dataDir)).length === 0)
} catch (err) {
  failures.push((err as Error).message)
  console.log(`FAILED - ${(err as Error).message}`)
} finally {
  if (child.exitCode === null) child.kill('SIGKILL')
  for (const pid of await processesUsing(dataDir)) process.kill(pid, 'SIGKILL')
  await rm(dataDir, { recursive: true, force: true })
}
console.log(failures.length === 0 ? 'smoke test passed' : `smoke test failed: ${failures.join('; ')}`)
process.exit(failures.length === 0 ? 0 : 1)

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
