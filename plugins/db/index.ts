import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../core/db/index.ts'
import { createQueries, type Queries } from '../../core/queries/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    db: Database
    /** The read model over the index (core/queries/index.ts). */
    queries: Queries
  }
}

/** The database, opened and migrated before the app was built (plugins/resources.ts), and its read model; closed with the app. */
export type DbOptions = { database: Database }

async function db (app: FastifyInstance, { database }: DbOptions): Promise<void> {
  app.decorate('db', database)
  app.decorate('queries', createQueries({ knex: database.knex, prepared: database.prepared }))
  app.addHook('onClose', async () => await database.close())
}

export default fp(db, { name: 'db', fastify: '5.x' })
