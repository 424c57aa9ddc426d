// What a WebSocket's 'error' event means. ws raises one (with a WS_ERR_ code)
// when the client breaks the protocol: a text frame that is not UTF-8, a
// message over the size limit, a bad opcode or close code. ws has then already
// closed the socket with the code that says so (1007, 1009, 1002), so it is
// the client's mistake, logged as such, not a server error.
import type { FastifyRequest } from 'fastify'
import type { WebSocket } from 'ws'

export function isClientProtocolError (err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('WS_ERR_')
}

/** @fastify/websocket's errorHandler: its default logs every socket error at error level and terminates the socket. */
export function onSocketError (err: Error, socket: WebSocket, request: FastifyRequest): void {
  if (isClientProtocolError(err)) {
    request.log.info({ err: err.message, code: (err as { code?: string }).code }, 'WebSocket closed: the client broke the protocol')
    return
  }
  request.log.error({ err }, 'WebSocket failed')
  socket.terminate()
}
