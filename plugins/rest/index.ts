import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { mainPageRoutes } from './main-page.ts'

/** The Blockscout-compatible REST API under /api/v2, reading what the indexer wrote. */
async function rest (app: FastifyInstance): Promise<void> {
  await app.register(mainPageRoutes, { prefix: '/api/v2' })
}

export default fp(rest, { name: 'rest', fastify: '5.x', dependencies: ['db', 'geth', 'indexer'] })
