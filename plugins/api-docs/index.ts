import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'

export type ApiDocsOptions = { version: string }

/** Collects every route's schema into an OpenAPI 3 document; /api-docs is the interactive page over it. */
async function apiDocs (app: FastifyInstance, options: ApiDocsOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'testnet-gateway',
        description: 'Public EVM test network (chain ID 793788): JSON-RPC, explorer APIs and health.',
        version: options.version
      }
    }
  })
  await app.register(swaggerUi, { routePrefix: '/api-docs' })
}

export default fp(apiDocs, { name: 'api-docs', fastify: '5.x' })
