// DATA_DIR/endpoints.json: where a running gateway's Geth and database are.
// Both listen on random loopback ports, so operator commands (`npm run ops`)
// read them here instead of starting a second Geth or PostgreSQL on the same
// directory. Written once the gateway serves, removed when it stops cleanly.
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export const ENDPOINTS_FILE = 'endpoints.json'

export type Endpoints = {
  pid: number
  geth_rpc_url: string
  /** The node's WebSocket: what other instances on this node take as GETH_WS_URL. */
  geth_ws_url?: string
  database_url: string
  /** Where the gateway serves (HOST:PORT as bound); `ops status` reads /health and probes GraphQL there. */
  gateway_url?: string
}

/** Written whole or not at all (temporary file, then rename); 0600 because the URL may carry a password. */
export async function writeEndpoints (dataDir: string, endpoints: Endpoints): Promise<void> {
  const file = join(dataDir, ENDPOINTS_FILE)
  const temporary = `${file}.${process.pid}.tmp`
  // With GETH_RPC_URL and DATABASE_URL set nothing else creates DATA_DIR.
  await mkdir(dataDir, { recursive: true })
  await writeFile(temporary, JSON.stringify(endpoints, null, 2) + '\n', { mode: 0o600 })
  await rename(temporary, file)
}

/** The endpoints of a gateway that is still alive; undefined when there is no file, it is malformed or its process is gone. */
export async function readEndpoints (dataDir: string): Promise<Endpoints | undefined> {
  let endpoints: Partial<Endpoints>
  try {
    endpoints = JSON.parse(await readFile(join(dataDir, ENDPOINTS_FILE), 'utf8'))
  } catch {
    return undefined
  }
  const { pid, geth_rpc_url: gethRpcUrl, geth_ws_url: gethWsUrl, database_url: databaseUrl, gateway_url: gatewayUrl } = endpoints
  if (typeof pid !== 'number' || typeof gethRpcUrl !== 'string' || typeof databaseUrl !== 'string') return undefined
  if (!isProcessAlive(pid)) return undefined
  return {
    pid,
    geth_rpc_url: gethRpcUrl,
    ...(typeof gethWsUrl === 'string' ? { geth_ws_url: gethWsUrl } : {}),
    database_url: databaseUrl,
    ...(typeof gatewayUrl === 'string' ? { gateway_url: gatewayUrl } : {})
  }
}

/** Removes the file if it is this process's: a second gateway on the same directory keeps its own. */
export async function removeEndpoints (dataDir: string, pid = process.pid): Promise<void> {
  const file = join(dataDir, ENDPOINTS_FILE)
  const current = await readFile(file, 'utf8').then((text) => JSON.parse(text) as Partial<Endpoints>, () => undefined)
  if (current?.pid === pid) await rm(file, { force: true })
}

/** Running, not merely a zombie that its parent has not reaped yet (which signal 0 still reaches). */
export function isProcessAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  try {
    return !/^State:\s*Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))
  } catch {
    // Gone since the signal, or a system without /proc, where signal 0 has to do.
    return !existsSync('/proc/self')
  }
}

/**
 * The pid of a live process that runs Geth or embedded PostgreSQL on `dataDir`
 * as its child: a gateway, possibly still starting and not yet in
 * endpoints.json. A Geth or PostgreSQL orphaned by a gateway killed with -9
 * has been handed to init (pid 1) and does not count: the next start stops it.
 */
export async function findGatewayOnDataDir (dataDir: string): Promise<number | undefined> {
  const children: Array<[pidFile: string, dir: string]> = [
    [join(dataDir, 'geth.pid'), join(dataDir, 'geth')],
    [join(dataDir, 'postgres', 'postmaster.pid'), join(dataDir, 'postgres')]
  ]
  for (const [pidFile, dir] of children) {
    const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0])
    if (!Number.isInteger(pid) || pid <= 0) continue
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
    if (!cmdline.includes(dir)) continue
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
    const parent = Number(/^PPid:\s*(\d+)/m.exec(status)?.[1])
    if (parent > 1) return parent
  }
  return undefined
}
