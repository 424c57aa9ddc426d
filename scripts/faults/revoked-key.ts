// (g) An API key revoked while sockets it opened are open: a key is made and
// sockets of each kind (JSON-RPC /ws, GraphQL subscriptions, the Phoenix
// socket) opened with it, then the key is revoked by `ops keys revoke`, another
// process on the database, as an operator on another machine would. Every
// socket must be closed with code 1008 within a second, and a public one of
// each kind stay open.
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'
import { runOps } from '../lib/gateway-process.ts'
import { createScenarioRecord, type FaultContext, type ScenarioResult } from './context.ts'

const KEY_REVOKED_CLOSE_CODE = 1008
/** The bound docs/access.md gives. */
const CLOSED_WITHIN_MS = 1000
/** How long a socket that is not closed is waited for. */
const WAIT_MS = 10_000
const PATHS = { 'JSON-RPC': '/ws', GraphQL: '/api/v2/graphql', Phoenix: '/socket/v2/websocket?vsn=2.0.0' } as const
type Kind = keyof typeof PATHS
type Closed = { code: number, reason: string, atMs: number }

async function openSocket (url: string, kind: Kind, key: string | undefined): Promise<{ socket: WebSocket, closed: Promise<Closed> }> {
  const path = PATHS[kind]
  const withKey = key === undefined ? path : `${path}${path.includes('?') ? '&' : '?'}apikey=${key}`
  const socket = new WebSocket(url.replace(/^http/, 'ws') + withKey, kind === 'GraphQL' ? 'graphql-transport-ws' : undefined)
  const closed = new Promise<Closed>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason), atMs: Date.now() })))
  socket.on('error', () => {})
  await once(socket, 'open')
  // One exchange each: the socket is served, not only accepted.
  const answered = once(socket, 'message')
  socket.send(kind === 'JSON-RPC' ? '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' : kind === 'GraphQL' ? '{"type":"connection_init"}' : '[null,"1","phoenix","heartbeat",{}]')
  await answered
  return { socket, closed }
}

export async function revokedKeySockets (context: FaultContext): Promise<ScenarioResult> {
  const record = createScenarioRecord('revoked-key', 'API key revoked under open sockets')
  const ops = { DATA_DIR: context.dataDir, DATABASE_URL: '', GETH_RPC_URL: '' }
  const label = `faults-revoked-${Date.now()}`
  const created = await runOps(['keys', 'create', '--label', label], ops)
  const key = created.stdout.split('\n').find((line) => line.startsWith('tg_'))
  if (created.exitCode !== 0 || key === undefined) throw new Error(`ops keys create failed: ${created.stderr.slice(-300)}`)
  const url = context.gateway.url
  const kinds = Object.keys(PATHS) as Kind[]
  const keyed = await Promise.all(kinds.map(async (kind) => ({ kind, ...await openSocket(url, kind, key) })))
  const publics = await Promise.all(kinds.map(async (kind) => ({ kind, ...await openSocket(url, kind, undefined) })))
  try {
    const revoked = await runOps(['keys', 'revoke', label], ops)
    // The notice is sent at the revocation's commit, before the command has closed its connection and exited.
    const committedBy = Date.now()
    record.expect(revoked.exitCode === 0, `ops keys revoke failed: ${revoked.stderr.slice(-300)}`)
    const closes = await Promise.all(keyed.map(async (s) => await Promise.race([s.closed, sleep(WAIT_MS).then(() => undefined)])))
    const figures: string[] = []
    keyed.forEach((s, i) => {
      const closed = closes[i]
      if (closed === undefined) {
        record.expect(false, `${s.kind}: the key's socket is still open ${WAIT_MS} ms after the revocation`)
        figures.push(`${s.kind} open`)
        return
      }
      // Measured from the ops command's exit: its connection's close and exit come after the commit.
      const ms = Math.max(0, closed.atMs - committedBy)
      figures.push(`${s.kind} ${closed.code} "${closed.reason}" by ${ms} ms after ops exited`)
      record.expect(closed.code === KEY_REVOKED_CLOSE_CODE, `${s.kind}: closed with ${closed.code} "${closed.reason}", not ${KEY_REVOKED_CLOSE_CODE}`)
      record.expect(ms <= CLOSED_WITHIN_MS, `${s.kind}: closed ${ms} ms after the revocation (at most ${CLOSED_WITHIN_MS})`)
    })
    record.figure(`key's sockets closed: ${figures.join('; ')}`)
    const stillOpen = publics.filter((s) => s.socket.readyState === WebSocket.OPEN).length
    record.figure(`public sockets still open: ${stillOpen} of ${publics.length}`)
    record.expect(stillOpen === publics.length, 'a public socket was closed with the key\'s')
  } finally {
    for (const s of [...keyed, ...publics]) s.socket.terminate()
  }
  return record.result()
}
