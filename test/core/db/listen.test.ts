import t from 'tap'
import { once } from 'node:events'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import pino from 'pino'
import { listenOnChannel } from '../../../core/db/listen.ts'
import { createTestDatabase } from '../../support/database.ts'

const log = pino({ level: 'silent' })

t.test('listenOnChannel() that cannot connect rejects and never calls onEnd (the caller retries once, not twice)', async (t) => {
  // As PostgreSQL does while it starts again after a crash: it accepts, then closes at once.
  const sockets: Socket[] = []
  const server = createServer((socket) => { sockets.push(socket); socket.destroy() })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const { port } = server.address() as AddressInfo
  let ends = 0
  for (const databaseUrl of [`postgres://u:p@127.0.0.1:${port}/x`, 'postgres://u:p@127.0.0.1:1/x']) {
    await t.rejects(listenOnChannel({ databaseUrl, channel: 'tg_test', log, what: 'a test channel', onPayload: () => {}, onEnd: () => { ends++ } }))
  }
  // pg emits 'end' after the rejection, on a later tick.
  await sleep(200)
  t.equal(ends, 0, 'onEnd is for a listener that was listening')
  t.equal(sockets.length, 1, 'the first URL was reached')
})

t.test('listenOnChannel() hears notices and calls onEnd once when its connection is lost', async (t) => {
  const databaseUrl = await createTestDatabase(t)
  const payloads: string[] = []
  const ended = { count: 0 }
  const listener = await listenOnChannel({ databaseUrl, channel: 'tg_test', log, what: 'a test channel', onPayload: (p) => payloads.push(p), onEnd: () => { ended.count++ } })
  t.teardown(async () => await listener.close())
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  t.teardown(async () => await client.end())
  await client.query("select pg_notify('tg_test', 'one')")
  for (let i = 0; i < 100 && payloads.length === 0; i++) await sleep(20)
  t.same(payloads, ['one'])
  await client.query("select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen tg_test' and datname = current_database()")
  for (let i = 0; i < 100 && ended.count === 0; i++) await sleep(20)
  await sleep(100)
  t.equal(ended.count, 1, 'once')
})
