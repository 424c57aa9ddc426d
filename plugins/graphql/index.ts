import { readFile } from 'node:fs/promises'
import fp from 'fastify-plugin'
import mercurius, { type MercuriusOptions } from 'mercurius'
import websocket from '@fastify/websocket'
import { printSchema, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from 'graphql'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../core/config.ts'
import { SCALARS } from './scalars.ts'
import { camelCaseDocument } from './spelling.ts'
import { checkComplexity, depthLimitRule } from './limits.ts'
import { createBoundedPubSub } from './pubsub.ts'
import { ERROR_CODES, assertDocument, formatErrors, userError } from './errors.ts'
import { createLoaders } from './loaders.ts'
import { createQueryResolvers } from './resolvers/query.ts'
import { subscriptionResolvers } from './resolvers/subscription.ts'
import { guardSubscriptionMessages, MAX_WEBSOCKET_MESSAGE_BYTES } from './websocket-messages.ts'
import * as fieldResolvers from './resolvers/types.ts'
import { feedSubscriptions } from './feed.ts'
import { rememberOperationType } from '../metrics/graphql-operation.ts'
import { GRAPHIQL_PATH, GRAPHQL_PATH, GRAPHQL_V1_PATH, SCHEMA_PATH } from './paths.ts'

export type GraphqlOptions = Config['graphql']

/** A query document is text; a GraphQL request body needs no more. */
const MAX_BODY_BYTES = 100 * 1024
/** Parsing stops past this many tokens (GraphiQL's introspection query has about 300). */
const MAX_TOKENS = 2000

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
  const base: MercuriusOptions = {
    schema,
    resolvers: { ...SCALARS, ...createQueryResolvers(app.db.knex), ...fieldResolvers, ...subscriptionResolvers } as unknown as MercuriusOptions['resolvers'],
    loaders: createLoaders(app.db.knex, app.geth.rpc) as unknown as MercuriusOptions['loaders'],
    validationRules: [depthLimitRule(options.maxDepth)],
    errorFormatter: formatErrors as unknown as MercuriusOptions['errorFormatter'],
    allowBatchedQueries: false,
    jit: 1,
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
    // Registered here rather than by mercurius (which then uses it) so that its server is in reach.
    await scope.register(websocket, { options: { maxPayload: MAX_WEBSOCKET_MESSAGE_BYTES } })
    guardSubscriptionMessages(scope.websocketServer)
    await scope.register(mercurius, { ...base, path: GRAPHQL_PATH, graphiql: true, subscription: { fullWsTransport: false, pubsub: createBoundedPubSub({ maxQueued: options.subscriptionMaxQueued, log: app.log }) } })
    limits(scope)
    // Over WebSocket mercurius neither validates nor runs the HTTP hooks: the same checks here.
    scope.graphql.addHook('preSubscriptionExecution', async (schema, document, context) => {
      validateSubscription(schema, document, options)
      checkComplexity(schema, document, (context as { variables?: Record<string, unknown> }).variables, options.maxComplexity)
    })
    const stopFeed = feedSubscriptions(app.indexer, (event) => scope.graphql.pubsub.publish(event))
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
  if (errors.length > 0) throw userError(errors.map((e) => e.message).join('; '), ERROR_CODES.VALIDATION)
}

export default fp(graphql, { name: 'graphql', fastify: '5.x', dependencies: ['db', 'geth', 'indexer'] })
