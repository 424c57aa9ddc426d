// The Stats API under /stats/api/v1, as Blockscout's stats service serves it
// (the front end calls {stats host}/stats/api/v1/... directly): counters,
// line charts and pages read through the read model (app.queries.stats) from
// the daily sums the store keeps (core/stats/daily-stats.ts). Errors in the
// service's form, a gRPC code and a message.
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createLineCharts, PointsLimitError, RESOLUTIONS, type Resolution } from '../../core/queries/stats-line-charts.ts'
import { acceptsGzip, createAnswers, JSON_TYPE } from './answers.ts'
import {
  contractsPageResponse, countersResponse, lineChart, mainPageResponse, sectionsResponse, statsError, transactionsPageResponse, updateStatusResponse
} from './schemas.ts'

export type StatsOptions = { coinSymbol: string }

/** gRPC status codes the service answers with. */
const GRPC_INVALID_ARGUMENT = 3
const GRPC_NOT_FOUND = 5
const DATE = /^\d{4}-\d{2}-\d{2}$/

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

const fail = async (reply: FastifyReply, status: 400 | 404, message: string) =>
  await reply.code(status).send({ code: status === 404 ? GRPC_NOT_FOUND : GRPC_INVALID_ARGUMENT, message })

async function stats (app: FastifyInstance, { coinSymbol }: StatsOptions): Promise<void> {
  const queries = app.queries.stats
  const charts = createLineCharts(coinSymbol)
  const answers = createAnswers((err, key) => app.log.warn({ err, key }, 'reading Stats API figures failed; serving the last ones'))
  const send = async (request: FastifyRequest, reply: FastifyReply, key: string, read: () => Promise<object>) => {
    const answer = await answers.get(key, read)
    reply.type(JSON_TYPE).header('vary', 'accept-encoding')
    if (answer.gzip !== undefined && acceptsGzip(request.headers['accept-encoding'])) return await reply.header('content-encoding', 'gzip').send(answer.gzip)
    return await reply.send(answer.json)
  }
  await app.register(async (scope) => {
    scope.setErrorHandler(async (error: FastifyError, request, reply) => {
      if ((error.statusCode ?? 500) < 500) return await fail(reply, 400, error.message)
      request.log.error({ err: error, reqId: request.id }, 'Stats API request failed')
      return await reply.code(500).send({ code: 13, message: 'internal error' })
    })
    scope.get('/counters', { schema: { tags, summary: 'Counters, in layout order', response: { 200: countersResponse } } },
      async (request, reply) => await send(request, reply, 'counters', async () => ({ counters: await queries.readCounters(coinSymbol) })))
    scope.get('/lines', { schema: { tags, summary: 'Line charts by section', response: { 200: sectionsResponse } } },
      async () => ({ sections: charts.sections() }))
    scope.get<{ Params: { name: string }, Querystring: { from?: string, to?: string, resolution?: string } }>('/lines/:name', {
      schema: {
        tags,
        summary: 'One line chart\'s points',
        params: { type: 'object', properties: { name: { type: 'string', maxLength: 100 } } },
        querystring: {
          type: 'object',
          properties: {
            from: { type: 'string', maxLength: 40, description: 'YYYY-MM-DD, inclusive; unparseable dates are ignored' },
            to: { type: 'string', maxLength: 40, description: 'YYYY-MM-DD, inclusive' },
            resolution: { type: 'string', maxLength: 40, description: 'DAY (default), WEEK, MONTH or YEAR' }
          }
        },
        response: { 200: lineChart, ...errors }
      }
    }, async (request, reply) => {
      const { name } = request.params
      const info = charts.find(name)
      if (info === undefined) return await fail(reply, 404, `chart with name '${name}' was not found`)
      const asked = request.query.resolution ?? 'DAY'
      const resolution = (asked === 'RESOLUTION_UNSPECIFIED' ? 'DAY' : asked) as Resolution
      if (!RESOLUTIONS.includes(resolution)) return await fail(reply, 404, `resolution '${asked}' for line chart '${name}' was not found`)
      try {
        const range = { from: parseDate(request.query.from), to: parseDate(request.query.to), resolution }
        return await send(request, reply, `lines ${name} ${range.from} ${range.to} ${resolution}`, async () => ({ chart: await queries.readLinePoints({ id: name, ...range }), info }))
      } catch (err) {
        if (err instanceof PointsLimitError) return await fail(reply, 400, err.message)
        throw err
      }
    })
    scope.get('/pages/main', { schema: { tags, summary: 'The main page\'s figures', response: { 200: mainPageResponse } } },
      async (request, reply) => await send(request, reply, 'main', async () => await queries.readMainPage(coinSymbol)))
    scope.get('/pages/transactions', { schema: { tags, summary: 'The transactions page\'s figures', response: { 200: transactionsPageResponse } } },
      async (request, reply) => await send(request, reply, 'transactions', async () => await queries.readTransactionsPage(coinSymbol)))
    scope.get('/pages/contracts', { schema: { tags, summary: 'The contracts page\'s figures', response: { 200: contractsPageResponse } } },
      async (request, reply) => await send(request, reply, 'contracts', async () => await queries.readContractsPage(coinSymbol)))
    scope.get('/update-status', { schema: { tags, summary: 'How far the charts are updated', response: { 200: updateStatusResponse } } },
      async () => UPDATE_STATUS)
  }, { prefix: '/stats/api/v1' })
}

export default fp(stats, { name: 'stats', fastify: '5.x', dependencies: ['db'] })
