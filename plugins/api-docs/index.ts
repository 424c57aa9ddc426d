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
      },
      // The admin API's (plugins/auth/admin.ts, served when ADMIN_TOKEN is set).
      tags: [
        { name: 'admin', description: 'API keys for an operator\'s own sign-up or billing page: Authorization: Bearer <ADMIN_TOKEN>' },
        // plugins/rest/interpretations.ts: not in Blockscout's API.
        { name: 'interpretation', description: 'This gateway\'s own, not Blockscout\'s: transactions decoded, named and summarised (docs/interpreter.md)' }
      ],
      components: { securitySchemes: { adminToken: { type: 'http', scheme: 'bearer' } } }
    }
  })
  await app.register(swaggerUi, { routePrefix: '/api-docs' })
  // Where Blockscout serves its own: the same document, narrowed to the REST API.
  app.get('/api/v2/openapi', { schema: { hide: true } }, async () => restDocument(app.swagger() as Document))
}

type Document = { paths?: Record<string, unknown> }

/** The OpenAPI document with only the REST paths (/api/v2 and Blockscout's /api/health). */
function restDocument (document: Document): Document {
  const paths = Object.fromEntries(Object.entries(document.paths ?? {}).filter(([path]) => path.startsWith('/api/')))
  return { ...document, paths }
}

export default fp(apiDocs, { name: 'api-docs', fastify: '5.x' })
