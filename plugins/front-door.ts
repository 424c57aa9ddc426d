// The HTTP server's request listener, in front of Fastify's router: a plugin
// may take the requests it can answer without Fastify's request lifecycle
// (the JSON-RPC endpoint's fast path, plugins/rpc-proxy/fast-path.ts, which
// costs the process about half the CPU per request); every request it does
// not take goes to Fastify as before. Made before Fastify (its serverFactory),
// so that the server is the one Fastify listens on and closes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { FastifyServerFactory } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    /** Where a plugin puts a request taker ahead of Fastify's router (plugins/front-door.ts). */
    frontDoor: FrontDoor
  }
}

/** True when it took the request (and answers it); false leaves it to Fastify, untouched: nothing of its body read. */
export type RequestTaker = (request: IncomingMessage, response: ServerResponse) => boolean

export type FrontDoor = {
  serverFactory: FastifyServerFactory
  /** Puts `taker` ahead of Fastify's router; one at most. */
  take (taker: RequestTaker): void
  /** Requests the taker took so far. */
  taken (): number
}

type ServerSettings = { keepAliveTimeout: number, requestTimeout: number, connectionTimeout: number, maxRequestsPerSocket: number }

export function createFrontDoor (): FrontDoor {
  let taker: RequestTaker | undefined
  let taken = 0
  return {
    taken: () => taken,
    take (next) {
      if (taker !== undefined) throw new Error('the front door has a request taker already')
      taker = next
    },
    serverFactory: (route, options) => {
      const server: Server = createServer(options.http ?? {}, (request, response) => {
        if (taker !== undefined && taker(request, response)) taken++
        else route(request, response)
      })
      // What Fastify sets on the server it makes when it is given no factory (fastify/lib/server.js), from its options with their defaults.
      const o = options as unknown as ServerSettings
      server.keepAliveTimeout = o.keepAliveTimeout
      server.requestTimeout = o.requestTimeout
      server.setTimeout(o.connectionTimeout)
      if (o.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = o.maxRequestsPerSocket
      return server
    }
  }
}
