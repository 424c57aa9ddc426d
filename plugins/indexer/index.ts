import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createIndexer, type Indexer } from '../../core/indexer/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    indexer: Indexer
  }
}

export type IndexerPluginOptions = { enabled?: boolean, bulkLoadMinBlocks?: number }

/**
 * Follows the node into the database. Every instance runs one; the one that
 * holds the advisory lock writes, the others (and every instance with
 * INDEXER_ENABLED=false) hear the writer's commits and report status. Starts
 * once the server is ready and is stopped (awaited) before the node and database.
 */
async function indexer (app: FastifyInstance, options: IndexerPluginOptions): Promise<void> {
  const instance = createIndexer({
    db: app.db.knex,
    databaseUrl: app.db.url,
    rpc: app.geth.rpc,
    wsUrl: app.geth.wsUrl,
    log: app.log.child({ name: 'indexer' }),
    enabled: options.enabled,
    bulkLoadMinBlocks: options.bulkLoadMinBlocks
  })
  app.decorate('indexer', instance)
  app.addHook('onReady', async () => instance.start())
  app.addHook('preClose', async () => await instance.stop())
}

export default fp(indexer, { name: 'indexer', fastify: '5.x', dependencies: ['db', 'geth'] })
