import t from 'tap'
import { once } from 'node:events'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import pino from 'pino'
import { hearChannel, listenOnChannel, RELISTEN_MS } from '../../../core/db/listen.ts'
import { createTestDatabase } from '../../support/database.ts'

const log = pino({ level: 'silent' })

/** A connection of the test's own, to notify and to watch the listeners from. */
async function openClient (t: { teardown (fn: () => unknown): void }, databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  t.teardown(async () => await client.end())
  return client
}

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
  const client = await openClient(t, databaseUrl)
  await client.query("select pg_notify('tg_test', 'one')")
  for (let i = 0; i < 100 && payloads.length === 0; i++) await sleep(20)
  t.same(payloads, ['one'])
  await client.query("select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen tg_test' and datname = current_database()")
  for (let i = 0; i < 100 && ended.count === 0; i++) await sleep(20)
  await sleep(100)
  t.equal(ended.count, 1, 'once')
})

t.test('hearChannel() listens again after its connection is lost, and says notices may have been missed', async (t) => {
  const databaseUrl = await createTestDatabase(t)
  const payloads: string[] = []
  const missed = { count: 0 }
  const events: string[] = []
  const hearing = await hearChannel({ databaseUrl, channel: 'tg_test', log, what: 'a test channel', onPayload: (p) => payloads.push(p), onMissed: () => { missed.count++; events.push('missed') }, onLost: () => events.push('lost') })
  t.teardown(async () => await hearing.close())
  const client = await openClient(t, databaseUrl)
  const listening = async () => (await client.query("select pid from pg_stat_activity where query = 'listen tg_test' and datname = current_database()")).rows.map((r) => r.pid as number)
  const [first] = await listening()
  t.equal(missed.count, 0, 'nothing missed on the first connection')
  await client.query('select pg_terminate_backend($1)', [first])
  for (let i = 0; i < 150 && missed.count === 0; i++) await sleep(20)
  t.equal(missed.count, 1, 'told once it listens again')
  t.same(events, ['lost', 'missed'], 'told when the connection was lost, then when it listens again')
  t.not((await listening())[0], first)
  await client.query("select pg_notify('tg_test', 'after')")
  for (let i = 0; i < 100 && payloads.length === 0; i++) await sleep(20)
  t.same(payloads, ['after'])
  await hearing.close()
  for (let i = 0; i < 100 && (await listening()).length > 0; i++) await sleep(20)
  t.same(await listening(), [], 'closed for good')
})

t.test('hearChannel() that cannot connect resolves and keeps trying until closed', async (t) => {
  const missed = { count: 0 }
  let lost = 0
  const hearing = await hearChannel({ databaseUrl: 'postgres://u:p@127.0.0.1:1/x', channel: 'tg_test', log, what: 'a test channel', onPayload: () => {}, onMissed: () => { missed.count++ }, onLost: () => { lost++ } })
  t.equal(lost, 1, 'told it is not listening before it resolves')
  await sleep(RELISTEN_MS + 200)
  await hearing.close()
  t.equal(missed.count, 0, 'never listened: nothing to have missed from')
})
