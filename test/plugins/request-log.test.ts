// request.log (plugins/request-log.ts) and the one way errors are logged
// (plugins/send-error.ts): the request id bound once, on first use, and
// nothing made for a request that writes nothing.
import t from 'tap'
import { Writable } from 'node:stream'
import pino from 'pino'
import Fastify from 'fastify'
import { lazyRequestLogger } from '../../plugins/request-log.ts'
import { logRequestError } from '../../plugins/send-error.ts'
import { publicErrorOf } from '../../core/error-answers.ts'
import { DatabaseUnavailableError, FaucetEmptyError, NotFoundError } from '../../core/errors.ts'

type Line = Record<string, unknown> & { level: number, msg: string }

/** A pino logger at `level` whose lines are kept, and how many children it made. */
function capture (level: pino.Level) {
  const lines: Line[] = []
  const stream = new Writable({ write (chunk, _encoding, done) { for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l)); done() } })
  const parent = pino({ level }, stream)
  let children = 0
  const child = parent.child.bind(parent)
  parent.child = ((...args: Parameters<typeof child>) => { children++; return child(...args) }) as typeof parent.child
  return { parent, lines, children: () => children }
}

t.test('lazyRequestLogger makes no child until a line is written at an enabled level, then one, with the request id once', async (t) => {
  const { parent, lines, children } = capture('info')
  const log = lazyRequestLogger(parent, { reqId: 'req-1' }, {})
  log.debug({ a: 1 }, 'not written')
  log.trace('nor this')
  t.equal(children(), 0, 'a line below the level makes no child')
  t.equal(log.level, 'info')
  log.info({ a: 2 }, 'first')
  log.warn('second')
  t.equal(children(), 1, 'one child for the request')
  t.same(lines.map((l) => [l.msg, l.reqId, l.a]), [['first', 'req-1', 2], ['second', 'req-1', undefined]])
  const line = JSON.stringify(lines[0])
  t.equal(line.indexOf('"reqId"'), line.lastIndexOf('"reqId"'), 'reqId once in the line')
})

t.test('lazyRequestLogger honours a route\'s own level', async (t) => {
  const { parent, lines } = capture('info')
  const log = lazyRequestLogger(parent, { reqId: 'req-2' }, { level: 'debug' })
  t.equal(log.level, 'debug')
  log.debug('written at the route\'s level')
  t.same(lines.map((l) => [l.level, l.reqId]), [[20, 'req-2']])
})

t.test('through Fastify: request.log lines carry reqId; a request that logs nothing makes no child', async (t) => {
  const { parent, lines, children } = capture('info')
  const app = Fastify({ loggerInstance: parent, childLoggerFactory: lazyRequestLogger, disableRequestLogging: true })
  app.get('/quiet', async () => 'ok')
  app.get('/loud', async (request) => { request.log.info('handled'); return 'ok' })
  t.teardown(async () => await app.close())
  await app.ready()
  const before = children()
  await app.inject('/quiet')
  t.equal(children(), before, 'no child for a quiet request')
  const loud = await app.inject('/loud')
  t.equal(loud.statusCode, 200)
  t.match(lines.find((l) => l.msg === 'handled'), { reqId: /.+/ })
})

t.test('logRequestError logs by class: a client\'s mistake at debug, a coded 5xx at warn with its code, anything else at error with its stack', async (t) => {
  const { parent, lines } = capture('debug')
  const log = lazyRequestLogger(parent, { reqId: 'req-3' }, {})
  const cases = [new NotFoundError(), new FaucetEmptyError('0xfa'), Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), new Error('boom')]
  for (const error of cases) logRequestError(log, error, publicErrorOf(error), 'gateway')
  t.same(lines.map((l) => [l.level, l.msg, l.code, l.reqId, l.channel]), [
    [20, 'request refused', 'GW_ERR_NOT_FOUND', 'req-3', 'gateway'],
    [40, 'request could not be served now', 'GW_ERR_FAUCET_EMPTY', 'req-3', 'gateway'],
    // A refused connection to PostgreSQL is the database unavailable: a coded 503.
    [40, 'request could not be served now', new DatabaseUnavailableError().code, 'req-3', 'gateway'],
    [50, 'request failed', undefined, 'req-3', 'gateway']
  ])
  t.match(lines[3]!.err, { message: 'boom', stack: /Error: boom/ }, 'the stack of an internal failure')
})
