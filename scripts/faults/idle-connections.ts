// (g) A hostile client opens 1,000 connections from one address and sends
// nothing on them. Its address holds HTTP_MAX_CONNECTIONS_PER_ADDRESS of
// them, the rest are closed at once; a normal client from another address
// (127.0.0.2) gets /health and JSON-RPC answered promptly meanwhile; the held
// ones are closed after HTTP_HEADERS_TIMEOUT_MS, and the attacker's address
// is served again. Before, the 1,000 took every connection for 30 s.
import { connect, type Socket } from 'node:net'
import { request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { createScenarioRecord, expectRecovered, type FaultContext, type ScenarioResult } from './context.ts'

const IDLE_CONNECTIONS = 1000
const ATTACKER = '127.0.0.1'
const CLIENT = '127.0.0.2'
/** A normal client's answer while the attack holds: the time a loaded 2-core machine takes, never a timeout. */
const PROMPT_MS = 2000
/** The gateway's defaults (HTTP_HEADERS_TIMEOUT_MS, checked every quarter of it) and slack. */
const HELD_CLOSED_WITHIN_MS = 15_000
const SETTLE_MS = 500

type Answer = { status: number | string, ms: number, body: string }

/** One request on a connection of its own from `localAddress`. */
async function ask (url: string, localAddress: string, path: string, body?: string): Promise<Answer> {
  const started = Date.now()
  return await new Promise((resolve) => {
    const req = request(url + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      localAddress,
      agent: false,
      timeout: 60_000
    }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk }).on('end', () => resolve({ status: res.statusCode!, ms: Date.now() - started, body: text }))
    })
    req.on('timeout', () => req.destroy(new Error('no answer in 60 s')))
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: err.code ?? err.message, ms: Date.now() - started, body: '' }))
    req.end(body)
  })
}

type IdleConnection = { socket: Socket, closedAt: number | undefined }

async function openIdle (port: number): Promise<IdleConnection> {
  const socket = connect({ port, host: '127.0.0.1', localAddress: ATTACKER })
  const idle: IdleConnection = { socket, closedAt: undefined }
  socket.on('error', () => {})
  socket.resume()
  socket.on('close', () => { idle.closedAt = Date.now() })
  await new Promise((resolve) => socket.once('connect', resolve).once('close', resolve))
  return idle
}

export async function idleConnections (context: FaultContext): Promise<ScenarioResult> {
  const record = createScenarioRecord('idle-connections', `${IDLE_CONNECTIONS} idle connections from one address`)
  const url = context.gateway.url
  const idle = await Promise.all(Array.from({ length: IDLE_CONNECTIONS }, async () => await openIdle(Number(new URL(url).port))))
  const openedAt = Date.now()
  try {
    await sleep(SETTLE_MS)
    const held = idle.filter((c) => c.closedAt === undefined).length
    const health = await ask(url, CLIENT, '/health')
    const rpc = await ask(url, CLIENT, '/rpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }))
    record.figure(`${IDLE_CONNECTIONS - held} closed at once, ${held} held; another address: /health ${health.status} in ${health.ms} ms, eth_blockNumber ${rpc.status} in ${rpc.ms} ms`)
    record.expect(held < IDLE_CONNECTIONS, `the gateway held all ${IDLE_CONNECTIONS} idle connections of one address`)
    record.expect(health.status === 200 && health.ms <= PROMPT_MS, `/health from another address: ${health.status} in ${health.ms} ms (${PROMPT_MS} ms allowed)`)
    record.expect(rpc.status === 200 && /"result":"0x[0-9a-f]+"/.test(rpc.body) && rpc.ms <= PROMPT_MS, `eth_blockNumber from another address: ${rpc.status} ${rpc.body.slice(0, 100)} in ${rpc.ms} ms (${PROMPT_MS} ms allowed)`)
    while (idle.some((c) => c.closedAt === undefined) && Date.now() - openedAt < HELD_CLOSED_WITHIN_MS) await sleep(100)
    const open = idle.filter((c) => c.closedAt === undefined).length
    const lastClosedMs = Math.max(...idle.map((c) => (c.closedAt ?? Date.now()) - openedAt))
    const again = await ask(url, ATTACKER, '/health')
    record.figure(`the held ones closed by the gateway within ${(lastClosedMs / 1000).toFixed(1)} s; the attacker's address then: /health ${again.status}`)
    record.expect(open === 0, `${open} idle connections still open ${HELD_CLOSED_WITHIN_MS} ms after they were made`)
    record.expect(again.status === 200, `the attacker's address was not served again once its connections closed: ${again.status}`)
  } finally {
    for (const { socket } of idle) socket.destroy()
  }
  await expectRecovered(context, record)
  return record.result()
}
