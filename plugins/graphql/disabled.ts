import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { GraphqlDisabledError } from '../../core/errors.ts'
import { gatewayErrorBody, publicErrorOf } from '../../core/error-answers.ts'
import { GRAPHIQL_PATH, GRAPHQL_PATH, GRAPHQL_V1_PATH, SCHEMA_PATH } from './paths.ts'

/**
 * Stands in for the graphql plugin when GRAPHQL_ENABLED is false: every
 * GraphQL path answers 404 saying why (not the REST scope's 400 for an unknown
 * /api/v2 action), and none of them is listed in /api-docs.
 */
async function graphqlDisabled (app: FastifyInstance): Promise<void> {
  const error = new GraphqlDisabledError()
  const body = gatewayErrorBody(publicErrorOf(error))
  for (const url of [GRAPHQL_PATH, GRAPHQL_V1_PATH, GRAPHIQL_PATH, `${GRAPHIQL_PATH}/*`, SCHEMA_PATH]) {
    app.all(url, { schema: { hide: true } }, async (_request, reply) => await reply.code(404).send(body))
  }
}

export default fp(graphqlDisabled, { name: 'graphql', fastify: '5.x' })
