// Connections per client address (core/net/connection-counter.ts), counted
// on the server's own 'connection' event: a connection over its address's
// share is closed before anything of it is read, as Node closes those over
// HTTP_MAX_CONNECTIONS. Connections that never send a request are Node's
// (headersTimeout in plugins/index.ts): closed after HTTP_HEADERS_TIMEOUT_MS.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createConnectionCounter } from '../../core/net/connection-counter.ts'
import { createAddressMatcher } from '../../core/net/subnets.ts'

export type ConnectionsOptions = {
  maxPerAddress: number
  /** TRUST_PROXY: every client of a reverse proxy arrives from its address, so the proxy's connections are not counted. */
  trustProxy: readonly string[]
}

async function connections (app: FastifyInstance, { maxPerAddress, trustProxy }: ConnectionsOptions): Promise<void> {
  const log = app.log.child({ name: 'connections' })
  const counter = createConnectionCounter({ maxPerAddress, isExempt: createAddressMatcher(trustProxy) })
  app.server.on('connection', (socket) => {
    const admission = counter.admit(socket.remoteAddress)
    if (admission.admitted) {
      socket.once('close', admission.release)
      return
    }
    socket.destroy()
    // Once per episode: an address refused a thousand times in a second would otherwise log a thousand lines.
    if (admission.first) log.warn({ client: admission.bucket, maxPerAddress }, 'a client address holds its most connections; further ones are closed')
  })
}

export default fp(connections, { name: 'connections', fastify: '5.x' })
