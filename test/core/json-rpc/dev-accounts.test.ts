// eth_sendTransaction's per-account queue against a node that never answers
// (a local HTTP server that accepts requests and sends nothing): each send
// answers -32603 within RPC_TIMEOUT_MS of its own arrival, however many wait
// before it, and the queue moves on.
import t from 'tap'
import { createServer, type Server } from 'node:http'
import type { Socket } from 'node:net'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { Wallet } from 'ethers'
import { createRpcClient } from '../../../core/rpc/client.ts'
import { loadDevAccounts } from '../../../core/json-rpc/dev-accounts.ts'
import { createJsonRpcHandler } from '../../../core/json-rpc/handler.ts'

const TIMEOUT_MS = 1000
/** Timers and a busy shared machine; the old queue took a whole timeout more per send ahead. */
const SLACK_MS = 600

/** An HTTP server that reads each request and never answers it; `requests` counts them. */
async function hangingNode (): Promise<{ url: string, requests: () => number }> {
  const sockets = new Set<Socket>()
  let requests = 0
  const server: Server = createServer((request) => { requests++; request.resume() })
  server.on('connection', (socket) => { sockets.add(socket); socket.once('close', () => sockets.delete(socket)) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, requests: () => requests }
}

const node = await hangingNode()
const dir = await mkdtemp(join(tmpdir(), 'tg-dev-accounts-'))
t.teardown(async () => await rm(dir, { recursive: true, force: true }))
const wallet = Wallet.createRandom()
const file = join(dir, 'dev-accounts.json')
await writeFile(file, JSON.stringify([wallet.privateKey]))
const rpc = createRpcClient({ url: node.url, timeoutMs: TIMEOUT_MS })
t.teardown(async () => await rpc.close())
const devAccounts = await loadDevAccounts({ file, rpc, chainId: 793788, timeoutMs: TIMEOUT_MS })
t.teardown(() => devAccounts.close())
const handler = createJsonRpcHandler({ rpc, chainId: 793788, limits: { maxBatch: 100, maxLogRange: 10_000, maxLogResults: 10_000, traceTimeoutMs: 5000, traceMaxBytes: 16 * 1024 * 1024 }, devAccounts, log: pino({ level: 'silent' }) })

const send = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_sendTransaction', params: [{ from: wallet.address, to: wallet.address, value: '0x1' }] })

t.test('five concurrent sends from one account to a hung node each answer -32603 within the timeout of their arrival', async (t) => {
  const arrivals: number[] = []
  const answers = await Promise.all([1, 2, 3, 4, 5].map(async (id, i) => {
    // Arrivals spread a little, as a client's would be.
    await new Promise((resolve) => setTimeout(resolve, i * 50))
    arrivals[i] = Date.now()
    const reply = await handler.handle(send(id))
    return { reply, ms: Date.now() - arrivals[i]! }
  }))
  t.comment(`answered after ${answers.map((a) => a.ms).join(', ')} ms (RPC_TIMEOUT_MS ${TIMEOUT_MS})`)
  for (const [i, { reply, ms }] of answers.entries()) {
    t.equal(reply.status, 503, `send ${i + 1}: HTTP 503, as any request the node did not answer`)
    t.match(JSON.parse(reply.body!), { id: i + 1, error: { code: -32603 } }, `send ${i + 1}: -32603`)
    t.ok(ms >= TIMEOUT_MS - 50 && ms <= TIMEOUT_MS + SLACK_MS, `send ${i + 1}: answered ${ms} ms after its arrival`)
  }
  t.ok(node.requests() > 0, 'the node was asked')
})

t.test('a send after the queue timed out has its own full time, not what is left of the others\'', async (t) => {
  const started = Date.now()
  const reply = await handler.handle(send(6))
  const ms = Date.now() - started
  t.match(JSON.parse(reply.body!), { id: 6, error: { code: -32603 } })
  t.ok(ms >= TIMEOUT_MS - 50 && ms <= TIMEOUT_MS + SLACK_MS, `answered ${ms} ms after its arrival`)
})
