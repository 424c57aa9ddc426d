// The Stats API under /stats/api/v1, as Blockscout's stats service serves it
// (the front end calls {stats host}/stats/api/v1/... directly): counters,
// line charts and pages read through the read model (app.queries.stats) from
// the daily sums the store keeps (core/stats/daily-stats.ts). Errors in the
// service's form, a gRPC code and a message.
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../app.ts'
import { createLineCharts, PointsLimitError, RESOLUTIONS, type Resolution } from '../../core/stats/line-charts.ts'
import { sendError } from '../send-error.ts'
import { statsErrorBody } from '../../core/error-answers.ts'
import { acceptsGzip, createAnswers, JSON_TYPE, type Answer } from './answers.ts'
import {
  contractsPageResponse, countersResponse, lineChart, mainPageResponse, sectionsResponse, statsError, transactionsPageResponse, updateStatusResponse
} from './schemas.ts'

export type StatsOptions = { coinSymbol: string }

const DATE = /^\d{4}-\d{2}-\d{2}$/
/** Chart URLs remembered with their answer's key; past it the table starts over. */
const MAX_URLS = 1000

/** Every figure is kept as blocks are stored, so each group is always past its initial update. */
const UPDATE_STATUS = Object.freeze({
  all_status: 'COMPLETED_INITIAL_UPDATE',
  independent_status: 'COMPLETED_INITIAL_UPDATE',
  blocks_dependent_status: 'COMPLETED_INITIAL_UPDATE',
  internal_transactions_dependent_status: 'COMPLETED_INITIAL_UPDATE',
  user_ops_dependent_status: 'COMPLETED_INITIAL_UPDATE',
  zetachain_cctx_dependent_status: 'COMPLETED_INITIAL_UPDATE'
})

const tags = ['stats-service']
const errors = { 400: statsError, 404: statsError }

/** The service ignores a date it cannot parse. */
const parseDate = (text: string | undefined): string | undefined =>
  text !== undefined && DATE.test(text) && !Number.isNaN(Date.parse(text)) && new Date(text).toISOString().startsWith(text) ? text : undefined

/** A request the service cannot take, in its words (core/error-answers.ts): {code, message} with a gRPC code. */
const fail = async (reply: FastifyReply, status: 400 | 404, message: string): Promise<void> => {
  await reply.code(status).send(statsErrorBody({ kind: 'client', status, code: undefined, message }))
}

async function stats (app: App, { coinSymbol }: StatsOptions): Promise<void> {
  const queries = app.queries.stats
  const charts = createLineCharts(coinSymbol)
  const answers = createAnswers((err, key) => app.log.warn({ err, key }, 'reading Stats API figures failed; serving the last ones'))
  const sendAnswer = (request: FastifyRequest, reply: FastifyReply, answer: Answer): FastifyReply => {
    reply.type(JSON_TYPE).header('vary', 'accept-encoding')
    if (answer.gzip !== undefined && acceptsGzip(request.headers['accept-encoding'])) return reply.header('content-encoding', 'gzip').send(answer.gzip)
    return reply.send(answer.json)
  }
  // An answer already kept is sent from a handler that is not async and
  // returns nothing: no promise, and Fastify does not wait for the response to
  // end (awaiting reply.send does). A front end polls these, so that is most
  // requests, and the promises were a measurable share of one (bench:stats).
  // Only a key's first read returns a promise.
  const send = (request: FastifyRequest, reply: FastifyReply, key: string, read: () => Promise<object>): undefined | Promise<void> => {
    const kept = answers.peek(key)
    if (kept === undefined) return answers.get(key, read).then((answer) => { sendAnswer(request, reply, answer) })
    sendAnswer(request, reply, kept)
    return undefined
  }
  // A chart's URL names its answer: the dates in it are parsed (2 us a
  // request, a tenth of a year of points' whole cost on the server) once per
  // URL, not per request. A front end asks the same few URLs again and again.
  const keyOfUrl = new Map<string, string>()
  await app.register(async (scope: App) => {
    // In the service's words: {code, message} with a gRPC code; the database down is UNAVAILABLE (503), not a failure.
    scope.setErrorHandler(async (error, request, reply) => await sendError(request, reply, 'stats', error))
    scope.get('/counters', { schema: { tags, summary: 'Counters, in layout order', response: { 200: countersResponse } } },
      (request, reply) => send(request, reply, 'counters', async () => ({ counters: await queries.readCounters(coinSymbol) })))
    scope.get('/lines', { schema: { tags, summary: 'Line charts by section', response: { 200: sectionsResponse } } },
      async () => ({ sections: charts.sections() }))
    scope.get('/lines/:name', {
      schema: {
        tags,
        summary: 'One line chart\'s points',
        params: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 100 } } } as const,
        querystring: {
          type: 'object',
          properties: {
            from: { type: 'string', maxLength: 40, description: 'YYYY-MM-DD, inclusive; unparseable dates are ignored' },
            to: { type: 'string', maxLength: 40, description: 'YYYY-MM-DD, inclusive' },
            resolution: { type: 'string', maxLength: 40, description: 'DAY (default), WEEK, MONTH or YEAR' }
          }
        } as const,
        response: { 200: lineChart, ...errors }
      }
    }, (request, reply) => {
      const known = keyOfUrl.get(request.url)
      const answer = known === undefined ? undefined : answers.peek(known)
      if (answer !== undefined) { sendAnswer(request, reply, answer); return }
      const { name } = request.params
      const info = charts.find(name)
      if (info === undefined) return fail(reply, 404, `chart with name '${name}' was not found`)
      const asked = request.query.resolution ?? 'DAY'
      const resolution = (asked === 'RESOLUTION_UNSPECIFIED' ? 'DAY' : asked) as Resolution
      if (!RESOLUTIONS.includes(resolution)) return fail(reply, 404, `resolution '${asked}' for line chart '${name}' was not found`)
      const range = { from: parseDate(request.query.from), to: parseDate(request.query.to), resolution }
      const key = `lines ${name} ${range.from} ${range.to} ${resolution}`
      if (keyOfUrl.size >= MAX_URLS) keyOfUrl.clear()
      keyOfUrl.set(request.url, key)
      const sent = send(request, reply, key, async () => ({ chart: await queries.readLinePoints({ id: name, ...range }), info }))
      // A range over the points limit fails its read, which is never kept: always the promise's path.
      return sent?.catch(async (err: unknown) => {
        if (err instanceof PointsLimitError) return await fail(reply, 400, err.message)
        throw err
      })
    })
    scope.get('/pages/main', { schema: { tags, summary: 'The main page\'s figures', response: { 200: mainPageResponse } } },
      (request, reply) => send(request, reply, 'main', async () => await queries.readMainPage(coinSymbol)))
    scope.get('/pages/transactions', { schema: { tags, summary: 'The transactions page\'s figures', response: { 200: transactionsPageResponse } } },
      (request, reply) => send(request, reply, 'transactions', async () => await queries.readTransactionsPage(coinSymbol)))
    scope.get('/pages/contracts', { schema: { tags, summary: 'The contracts page\'s figures', response: { 200: contractsPageResponse } } },
      (request, reply) => send(request, reply, 'contracts', async () => await queries.readContractsPage(coinSymbol)))
    scope.get('/update-status', { schema: { tags, summary: 'How far the charts are updated', response: { 200: updateStatusResponse } } },
      async () => UPDATE_STATUS)
  }, { prefix: '/stats/api/v1' })
}

export default fp(stats, { name: 'stats', fastify: '5.x', dependencies: ['db'] })
