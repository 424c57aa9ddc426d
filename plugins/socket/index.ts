// Blockscout's Phoenix channels socket at /socket/v2/websocket, which its front
// end connects to for live updates (new blocks and transactions on the home
// page and lists, an address's or a token's new transfers and balance). The
// protocol lives in core/phoenix; this plugin is the WebSocket adapter, and
// feeds the topics from the indexer's committed batches (on a reader instance,
// the writer's commits read back), so every instance's clients hear every block.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { WebSocket } from 'ws'
import type { Config } from '../../core/config.ts'
import { createChannelHub } from '../../core/phoenix/hub.ts'
import { TOPICS } from '../../core/phoenix/topics.ts'
import { createPhoenixSession, type PhoenixSession } from '../../core/phoenix/session.ts'
import { refuseTopic } from '../../core/phoenix/topics.ts'
import { broadcastBatch } from './broadcasts.ts'

export type SocketOptions = Config['socket']

export const SOCKET_PATH = '/socket/v2/websocket'
/** Phoenix closes a socket that sent nothing (not even a heartbeat, every 30 s from its client) for this long. */
const HEARTBEAT_TIMEOUT_MS = 60_000
const SWEEP_INTERVAL_MS = 10_000
/** A closing handshake a client does not answer (it is not reading) is cut short after this. */
const CLOSE_GRACE_MS = 1000

async function socket (app: FastifyInstance, options: SocketOptions): Promise<void> {
  const hub = createChannelHub()
  const open = new Map<PhoenixSession, WebSocket>()
  const decoder = app.decoder
  // Address objects name what the REST pages name (plugins/address-names).
  const names = app.addressNames

  // Each message spends a request of the client that opened the socket (plugins/rate-limit; its upgrade
  // spent one already), as GraphQL subscription starts do; pushed events spend nothing.
  const budget = app.accessBudget

  app.get(SOCKET_PATH, { websocket: true, schema: { hide: true } }, (ws, request) => {
    const session = createPhoenixSession({
      transport: {
        send: (text, done) => ws.send(text, done),
        close (code, reason) {
          ws.close(code, reason)
          setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref()
        }
      },
      hub,
      refuseJoin: refuseTopic,
      maxChannels: options.maxChannels,
      maxQueued: options.maxQueued
    })
    open.set(session, ws)
    // Messages are charged one after another, so that they reach the session in the order sent.
    let charged = Promise.resolve(true)
    ws.on('message', (data: Buffer | Buffer[] | ArrayBuffer) => {
      const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)).toString('utf8')
      charged = charged.then(async (open) => {
        if (!open) return false
        if (await budget.chargeSubscription(request)) {
          session.receive(text)
          return true
        }
        // Over the budget: closed with the policy-violation code; a reconnect is refused 429 until the window resets.
        ws.close(1008, 'rate limit exceeded')
        return false
      }).catch((err: unknown) => {
        request.log.warn({ err }, 'charging a Phoenix socket message failed')
        return true
      })
    })
    ws.on('close', () => {
      session.end()
      open.delete(session)
    })
  })

  const sweep = setInterval(() => {
    const stale = Date.now() - HEARTBEAT_TIMEOUT_MS
    for (const [session, ws] of open) if (session.lastSeenMs() < stale) ws.terminate()
  }, SWEEP_INTERVAL_MS).unref()

  // Batches are broadcast one after another, in commit order.
  let broadcasting = Promise.resolve()
  const stopBroadcasting = app.indexer.events.subscribe((event) => {
    if (event.type !== 'block') return
    broadcasting = broadcasting
      .then(async () => await broadcastBatch(app.queries, hub, event.blocks, decoder, names))
      .catch((err: unknown) => app.log.warn({ err }, 'broadcasting a batch on the Phoenix socket failed'))
  })
  // Blockscout's verification form waits for this event on the address's topic (plugins/verify).
  const stopVerificationEvents = app.verifier.subscribe(({ address, ...result }) => hub.broadcast(TOPICS.address(address), 'verification_result', result))
  app.addHook('onClose', async () => {
    stopVerificationEvents()
    stopBroadcasting()
    clearInterval(sweep)
    await broadcasting
  })
}

export default fp(socket, { name: 'socket', fastify: '5.x', dependencies: ['db', 'indexer', 'websocket', 'rate-limit', 'verify', 'interpreter', 'address-names'] })
