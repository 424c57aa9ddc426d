// A client that breaks the WebSocket protocol is logged as the client's
// mistake (info), a failure of the gateway's own at error level.
import t from 'tap'
import { EventEmitter } from 'node:events'
import WebSocket, { WebSocketServer } from 'ws'
import { isClientProtocolError, onSocketError } from '../../../plugins/websocket/protocol-errors.ts'

t.test('isClientProtocolError() is true for ws\'s protocol errors only', async (t) => {
  t.ok(isClientProtocolError(Object.assign(new Error('Invalid WebSocket frame: invalid UTF-8 sequence'), { code: 'WS_ERR_INVALID_UTF8' })))
  t.ok(isClientProtocolError(Object.assign(new Error('Max payload size exceeded'), { code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' })))
  t.notOk(isClientProtocolError(Object.assign(new Error('reset'), { code: 'ECONNRESET' })))
  t.notOk(isClientProtocolError(new TypeError('bug')))
  t.notOk(isClientProtocolError(undefined))
})

t.test('onSocketError() logs a text frame that is not UTF-8 at info and leaves the close to ws (1007)', async (t) => {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  t.teardown(() => server.close())
  await EventEmitter.once(server, 'listening')
  const logged: Array<[string, unknown]> = []
  const log = { info: (o: unknown) => logged.push(['info', o]), error: (o: unknown) => logged.push(['error', o]) }
  server.on('connection', (socket) => {
    socket.on('error', (err) => onSocketError(err, socket, { log } as never))
  })
  const { port } = server.address() as { port: number }
  const client = new WebSocket(`ws://127.0.0.1:${port}`)
  await EventEmitter.once(client, 'open')
  client.send(Buffer.from([0xff, 0xfe]), { binary: false })
  const [code] = await EventEmitter.once(client, 'close') as [number]
  t.equal(code, 1007)
  t.same(logged.map(([level]) => level), ['info'])
})
