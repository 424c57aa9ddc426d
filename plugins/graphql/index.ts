import { readFile } from 'node:fs/promises'
import fp from 'fastify-plugin'
import mercurius, { type MercuriusOptions } from 'mercurius'
import { printSchema, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from 'graphql'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../core/config.ts'
import { SCALARS } from './scalars.ts'
import { camelCaseDocument, clientMessage } from './spelling.ts'
import { checkComplexity, depthLimitRule } from './limits.ts'
import { createBoundedPubSub } from './pubsub.ts'
import { ERROR_CODES, assertDocument, formatErrors, userError, withCode } from './errors.ts'
import { createLoaders } from './loaders.ts'
import { createQueryResolvers } from './query-resolvers.ts'
import { subscriptionResolvers } from './resolvers/subscription.ts'
import { guardSubscriptionMessages } from './websocket-messages.ts'
import { limitSubscriptions } from './subscription-limits.ts'
import * as fieldResolvers from './resolvers/types.ts'
import { summaryResolvers, TransactionSummary } from './resolvers/summary.ts'
import { feedSubscriptions } from './feed.ts'
import { rememberOperationType } from '../metrics/graphql-operation.ts'
import { GRAPHIQL_PATH, GRAPHQL_PATH, GRAPHQL_V1_PATH, SCHEMA_PATH } from './paths.ts'

export type GraphqlOptions = Config['graphql']

/** A query document is text; a GraphQL request body needs no more. */
const MAX_BODY_BYTES = 100 * 1024
/** Parsing stops past this many tokens (GraphiQL's introspection query has about 300). */
const MAX_TOKENS = 2000
/**
 * Documents mercurius keeps parsed, validated and JIT-compiled, by query text
 * (and as many of those that failed). Its default of 1024 each let a client
 * sending distinct large queries make the gateway hold about 1 GB (found by
 * npm run fuzz: about 0.9 MB an entry); a front end uses a few dozen queries.
 */
const QUERY_CACHE_ENTRIES = 64

/** As Blockscout: one operation per request; a JSON array of them is refused whole. */
async function refuseBatches (request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (Array.isArray(request.body)) {
    await reply.code(400).send({ errors: [{ message: 'Max batch size is 1', extensions: { code: ERROR_CODES.BAD_REQUEST } }] })
  }
}

/**
 * The Blockscout-compatible GraphQL API: queries at /api/v2/graphql (with
 * subscriptions over WebSocket there and GraphiQL at /graphiql) and at
 * Blockscout's /api/v1/graphql. Both run the same schema, resolvers, loaders
 * and limits; subscriptions are fed by the indexer's commits.
 */
async function graphql (app: FastifyInstance, options: GraphqlOptions): Promise<void> {
  const schema = await readFile(new URL('./schema.graphql', import.meta.url), 'utf8')
  const interpreter = app.interpreter
  const base: MercuriusOptions = {
    schema,
    resolvers: {
      ...SCALARS,
      ...createQueryResolvers(app.queries),
      ...fieldResolvers,
      Transaction: { ...fieldResolvers.Transaction, ...summaryResolvers(interpreter) },
      TransactionSummary,
      ...subscriptionResolvers
    } as unknown as MercuriusOptions['resolvers'],
    loaders: createLoaders(app.queries, app.geth.rpc) as unknown as MercuriusOptions['loaders'],
    validationRules: [depthLimitRule(options.maxDepth)],
    errorFormatter: formatErrors as unknown as MercuriusOptions['errorFormatter'],
    allowBatchedQueries: false,
    jit: 1,
    cache: QUERY_CACHE_ENTRIES,
    graphql: { parseOptions: { maxTokens: MAX_TOKENS } },
    additionalRouteOptions: { bodyLimit: MAX_BODY_BYTES, preValidation: refuseBatches }
  }
  const limits = (scope: FastifyInstance): void => {
    scope.graphql.addHook('preValidation', async (_schema, document) => {
      assertDocument(document)
      camelCaseDocument(document)
    })
    scope.graphql.addHook('preExecution', async (schema, document, context, variables) => {
      rememberOperationType(context, document)
      checkComplexity(schema, document, variables, options.maxComplexity)
    })
  }

  await app.register(async (scope) => {
    // @fastify/websocket is registered once at the root (plugins/websocket; the Phoenix socket shares it): mercurius uses it.
    guardSubscriptionMessages(scope.websocketServer)
    const subscriptions = limitSubscriptions(scope.websocketServer, {
      maxPerConnection: options.maxSubscriptionsPerConnection, maxTotal: options.maxSubscriptions, log: app.log
    })
    await scope.register(mercurius, { ...base, path: GRAPHQL_PATH, graphiql: true, subscription: { fullWsTransport: false, pubsub: createBoundedPubSub({ maxQueued: options.subscriptionMaxQueued, log: app.log }) } })
    limits(scope)
    // Over WebSocket mercurius neither validates nor runs the HTTP hooks: the same checks here, with
    // the variables it does not pass (kept by subscription-limits.ts) and a subscription's own cost limit.
    scope.graphql.addHook('preSubscriptionExecution', async (schema, document, context, id) => {
      const upgradeRequest = (context as unknown as { request: FastifyRequest }).request
      // Each subscription start spends a request of the client's budget (plugins/rate-limit); events pushed do not.
      if (!await app.accessBudget.chargeSubscription(upgradeRequest)) throw userError('Too many requests', 'RATE_LIMITED')
      validateSubscription(schema, document, options)
      const variables = subscriptions.takeVariables(upgradeRequest.raw, id)
      try {
        checkComplexity(schema, document, variables, options.subscriptionMaxComplexity, 'Subscription')
      } catch (error) {
        throw withCode(error) // a variable missing or of the wrong type
      }
    })
    const stopFeed = feedSubscriptions(app.indexer.events, (event) => scope.graphql.pubsub.publish(event))
    scope.addHook('onClose', async () => stopFeed())
    const sdl = printSchema(scope.graphql.schema)
    scope.get(SCHEMA_PATH, { schema: { response: { 200: { type: 'string' } } } }, async (_request, reply) => await reply.type('text/plain').send(sdl))
  })
  await app.register(async (scope) => {
    await scope.register(mercurius, { ...base, path: GRAPHQL_V1_PATH })
    limits(scope)
  })
  app.log.info({ paths: [GRAPHQL_PATH, GRAPHQL_V1_PATH, GRAPHIQL_PATH] }, 'GraphQL served')
}

function validateSubscription (schema: GraphQLSchema, document: DocumentNode, options: GraphqlOptions): void {
  assertDocument(document)
  camelCaseDocument(document)
  const errors = validate(schema, document, [...specifiedRules, depthLimitRule(options.maxDepth)])
  if (errors.length > 0) throw userError(errors.map(clientMessage).join('; '), ERROR_CODES.VALIDATION)
}

export default fp(graphql, { name: 'graphql', fastify: '5.x', dependencies: ['db', 'geth', 'indexer', 'websocket', 'rate-limit', 'interpreter'] })
