// buildApp(): the HTTP server's own limits (request timeout, connection cap)
// over real sockets, and the root error handler's answers and log levels.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import { request } from 'node:http'
import { Writable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import pino from 'pino'
import { JsonRpcProvider, Wallet } from 'ethers'
import { buildApp } from '../../plugins/index.ts'
import { buildTestConfig } from '../helper.ts'
import { waitForReceipt } from '../support/chain.ts'
import { subscribeGraphql } from '../support/graphql.ts'

const REQUEST_TIMEOUT_MS = 500
const MAX_CONNECTIONS = 20

// Every log record, to see which level a client's mistake is logged at.
const logs: Array<{ level: number, msg: string }> = []
const capture = new Writable({
  write (chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line))
    done()
  }
})
const { config, chain } = await buildTestConfig(t, {
  HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
  HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS)
})
const app = await buildApp(config, { logger: pino({ level: 'debug' }, capture) })
t.teardown(async () => await app.close())
await app.listen({ host: '127.0.0.1', port: 0 })
const { port } = app.server.address() as { port: number }
const url = `http://127.0.0.1:${port}`

/** A raw connection and everything the server sends on it; `closed` resolves when the server ends it. */
async function openSocket (): Promise<{ socket: Socket, received: () => string, closed: Promise<number> }> {
  const socket = connect(port, '127.0.0.1')
  let text = ''
  socket.on('data', (chunk) => { text += String(chunk) })
  socket.on('error', () => {})
  const opened = Date.now()
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - opened)))
  await new Promise((resolve) => socket.once('connect', resolve))
  return { socket, received: () => text, closed }
}

/** GET on a connection of its own (no keep-alive pool): the status, or the error's code when the server drops it. */
async function getStatus (path: string): Promise<number | string> {
  return await new Promise((resolve) => {
    const req = request(`${url}${path}`, { agent: false }, (res) => {
      res.resume()
      resolve(res.statusCode!)
    })
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
    req.end()
  })
}

// Bounded: without the timeout these sockets stay open for good.
t.test('a request body trickled slower than HTTP_REQUEST_TIMEOUT_MS gets 408 and its connection closed', { timeout: 10_000 }, async (t) => {
  const { socket, received, closed } = await openSocket()
  socket.write('POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{')
  const trickle = setInterval(() => socket.writable && socket.write(' '), 100)
  const ms = await closed
  clearInterval(trickle)
  t.ok(ms < REQUEST_TIMEOUT_MS * 4, `closed after ${ms} ms`)
  t.match(received(), /^HTTP\/1\.1 408/)
})

t.test('a connection that sends nothing is closed after the timeout', { timeout: 10_000 }, async (t) => {
  const { closed } = await openSocket()
  const ms = await closed
  t.ok(ms < REQUEST_TIMEOUT_MS * 4, `closed after ${ms} ms`)
})

t.test('connections beyond HTTP_MAX_CONNECTIONS are closed as they come', async (t) => {
  t.equal(await getStatus('/health'), 200)
  const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, openSocket))
  await sleep(50)
  t.equal(await getStatus('/health'), 'ECONNRESET', 'one more connection is dropped')
  for (const { socket } of held) socket.destroy()
  await Promise.all(held.map(async ({ closed }) => await closed))
  await sleep(50)
  t.equal(await getStatus('/health'), 200, 'served again once connections close')
})

t.test('a GraphQL subscription outlives the request timeout once its WebSocket is upgraded', async (t) => {
  const subscription = await subscribeGraphql(url.replace('http', 'ws') + '/api/v2/graphql', 'subscription { newBlock { number } }')
  t.teardown(() => subscription.close())
  await sleep(REQUEST_TIMEOUT_MS * 4)
  const provider = new JsonRpcProvider(`${url}/rpc`, 793788, { staticNetwork: true, cacheTimeout: -1 })
  t.teardown(() => provider.destroy())
  const tx = await new Wallet(chain.account.privateKey, provider).sendTransaction({ to: chain.account.address, value: 1n })
  const receipt = await waitForReceipt(provider, tx.hash)
  const message = await subscription.next(10_000)
  t.equal(message.type, 'next')
  t.ok(message.payload.data.newBlock.number >= receipt.blockNumber - 1, 'a block event still arrives')
})

t.test('the root error handler names the HTTP status, not the error class', async (t) => {
  const response = await fetch(`${url}/health`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"broken' })
  t.equal(response.status, 400)
  const body = await response.json()
  t.equal(body.error, 'Bad Request')
  t.equal(body.statusCode, 400)
})

t.test('a client closing its connection mid-request is not logged as a server error', async (t) => {
  const from = logs.length
  for (const path of ['/api/v2/graphql', '/health', '/rpc']) {
    const { socket, closed } = await openSocket()
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":`)
    await sleep(50)
    socket.destroy()
    await closed
  }
  await sleep(200)
  const errors = logs.slice(from).filter((l) => l.level >= 50)
  t.same(errors, [], 'nothing at error level')
})
