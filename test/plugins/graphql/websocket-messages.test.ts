// A subscription client that sends a message that is not a protocol message
// gets an error message back and keeps its connection: the JSON text `null`
// made mercurius throw (logged as a server error, the socket dropped without a
// word). PostgreSQL, HTTP and the WebSocket are real; no node is needed.
import t from 'tap'
import pino from 'pino'
import WebSocket from 'ws'
import { loadConfig } from '../../../core/config.ts'
import { openDatabase } from '../../../core/db/index.ts'
import { startApiServer } from '../../../scripts/bench/graphql/server.ts'
import { createTestDatabase } from '../../support/database.ts'
import { openSubscriptionSocket } from '../../support/graphql.ts'

const database = await openDatabase({ url: await createTestDatabase(t), dataDir: '', log: pino({ level: 'warn' }) })
t.teardown(async () => await database.close())
const config = loadConfig({ ...process.env, GETH_RPC_URL: '', DATA_DIR: '.' })
const server = await startApiServer(database, config.graphql)
t.teardown(async () => await server.close())

const connect = async () => await openSubscriptionSocket(`${server.url.replace('http', 'ws')}/api/v2/graphql`)

t.test('messages that are JSON but no protocol message are answered with an error; the connection stays open', async (t) => {
  const client = await connect()
  t.teardown(() => client.socket.close())
  client.socket.send(JSON.stringify({ type: 'connection_init' }))
  t.equal((await client.next()).type, 'connection_ack')
  for (const text of ['null', ' null\n', '42', '"text"', '[]', 'true', '{}', 'not json']) {
    client.socket.send(text)
    const answer = await client.next()
    t.equal(answer.type, 'error', `${JSON.stringify(text)} is answered with an error message`)
    t.equal(client.socket.readyState, WebSocket.OPEN, `${JSON.stringify(text)} leaves the connection open`)
  }
  // Still served: a ping is answered.
  client.socket.send(JSON.stringify({ type: 'ping' }))
  t.equal((await client.next()).type, 'pong')
})

t.test('a binary frame holding null is answered the same way', async (t) => {
  const client = await connect()
  t.teardown(() => client.socket.close())
  client.socket.send(JSON.stringify({ type: 'connection_init' }))
  t.equal((await client.next()).type, 'connection_ack')
  client.socket.send(Buffer.from('null'), { binary: true })
  t.equal((await client.next()).type, 'error')
  client.socket.send(JSON.stringify({ type: 'ping' }))
  t.equal((await client.next()).type, 'pong')
})
