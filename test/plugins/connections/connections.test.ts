// Idle connections from one client address (connect, send nothing) against
// the per-address cap and the headers deadline, over real sockets: the
// attacker's address holds at most HTTP_MAX_CONNECTIONS_PER_ADDRESS, the rest
// are closed at once, the ones held are closed after HTTP_HEADERS_TIMEOUT_MS,
// and meanwhile other clients (127.0.0.2) and /health are answered. A trusted
// proxy's address is not counted. Before, 100 idle sockets took all 60 of
// HTTP_MAX_CONNECTIONS until the request timeout and every other client hung.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import { request, Agent } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { build } from '../../helper.ts'

const MAX_CONNECTIONS = 60
const PER_ADDRESS = 10
// Long enough that the checks made while the attack holds (a loaded 2-core machine takes a second or two) all fall within it.
const HEADERS_TIMEOUT_MS = 4000
const IDLE_SOCKETS = 100
/** Connection checks run every quarter of the deadline; the rest is a loaded machine's slack. */
const CLOSED_WITHIN_MS = HEADERS_TIMEOUT_MS * 2
const ANSWERED_WITHIN_MS = 2000
const env = {
  HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
  HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS)
}
const { url } = await build(t, env)
const port = Number(new URL(url).port)

type IdleSocket = { socket: Socket, closed: Promise<number> }

/** A connection from `localAddress` that sends nothing; `closed` resolves with the ms it stayed open. */
async function openIdle (localAddress = '127.0.0.1', toPort = port): Promise<IdleSocket> {
  const socket = connect({ port: toPort, host: '127.0.0.1', localAddress })
  socket.on('error', () => {})
  socket.resume()
  const opened = Date.now()
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - opened)))
  await new Promise((resolve) => socket.once('connect', resolve).once('close', resolve))
  return { socket, closed }
}

/** GET from `localAddress` on `agent` (a fresh connection without one): status and ms taken, or the error's code. */
async function get (path: string, { localAddress = '127.0.0.2', agent, toUrl = url }: { localAddress?: string, agent?: Agent, toUrl?: string } = {}): Promise<{ status: number | string, ms: number }> {
  const started = Date.now()
  return await new Promise((resolve) => {
    const req = request(`${toUrl}${path}`, { localAddress, agent: agent ?? false, timeout: 10_000 }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode!, ms: Date.now() - started }))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: err.code ?? err.message, ms: Date.now() - started }))
    req.end()
  })
}

/** How many of `sockets` are closed `ms` from now, or as soon as `enough` are. */
async function closedAfter (sockets: IdleSocket[], ms: number, enough = Infinity): Promise<number> {
  const flags = sockets.map(() => false)
  sockets.forEach((s, i) => { s.closed.then(() => { flags[i] = true }, () => {}) })
  const until = Date.now() + ms
  while (Date.now() < until && flags.filter(Boolean).length < enough) await sleep(10)
  return flags.filter(Boolean).length
}

t.test(`${IDLE_SOCKETS} idle connections from one address: ${PER_ADDRESS} held, the rest closed at once; other clients and /health answered; the held ones closed after the headers deadline`, async (t) => {
  const idle = await Promise.all(Array.from({ length: IDLE_SOCKETS }, async () => await openIdle()))
  const openedAt = Date.now()
  // At once: well before the headers deadline, however loaded the machine (on a quiet one, within milliseconds).
  t.equal(await closedAfter(idle, HEADERS_TIMEOUT_MS / 2, IDLE_SOCKETS - PER_ADDRESS), IDLE_SOCKETS - PER_ADDRESS, 'all but the address\'s share closed at once')
  const health = await get('/health')
  t.equal(health.status, 200, '/health from another address')
  t.ok(health.ms < ANSWERED_WITHIN_MS, `answered in ${health.ms} ms`)
  const other = await get('/api/v2/blocks')
  t.equal(other.status, 200, 'a REST request from another address')
  t.ok(other.ms < ANSWERED_WITHIN_MS, `answered in ${other.ms} ms`)
  const more = await get('/health', { localAddress: '127.0.0.1' })
  t.ok(typeof more.status === 'string', `the attacker's address gets no more (${more.status})`)
  const lifetimes = await Promise.all(idle.map(async (s) => await s.closed))
  const longest = Math.max(...lifetimes)
  t.ok(Date.now() - openedAt < CLOSED_WITHIN_MS + 1000 && longest < CLOSED_WITHIN_MS, `every idle socket closed, the last after ${longest} ms`)
  t.ok(longest >= HEADERS_TIMEOUT_MS * 0.9, 'the held ones not before the deadline')
  t.equal((await get('/health', { localAddress: '127.0.0.1' })).status, 200, 'the address is served again once its sockets closed')
})

t.test('a kept-alive connection waits between its requests longer than the headers deadline', async (t) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  const sockets = new Set<Socket>()
  agent.on('free', (socket) => sockets.add(socket))
  t.equal((await get('/health', { agent })).status, 200)
  await sleep(HEADERS_TIMEOUT_MS * 1.5)
  t.equal((await get('/health', { agent })).status, 200)
  t.equal(sockets.size, 1, 'both on one socket')
})

t.test('a trusted proxy\'s address (TRUST_PROXY) is not held to the per-address cap', async (t) => {
  const proxied = await build(t, { ...env, TRUST_PROXY: '127.0.0.1' })
  const proxiedPort = Number(new URL(proxied.url).port)
  const idle = await Promise.all(Array.from({ length: PER_ADDRESS * 3 }, async () => await openIdle('127.0.0.1', proxiedPort)))
  t.equal(await closedAfter(idle, 300), 0, `${PER_ADDRESS * 3} connections from the proxy held`)
  t.equal((await get('/health', { localAddress: '127.0.0.1', toUrl: proxied.url })).status, 200)
  for (const { socket } of idle) socket.destroy()
})
