import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { openDatabase, type Database } from '../../core/db/index.ts'

declare module 'fastify' {
  interface FastifyInstance {
    db: Database
  }
}

export type DbOptions = { url: string | undefined, dataDir: string, poolMax: number }

/** The database (external or embedded), migrated before anything else starts. */
async function db (app: FastifyInstance, options: DbOptions): Promise<void> {
  const database = await openDatabase({ ...options, log: app.log.child({ name: 'db' }) })
  app.decorate('db', database)
  app.addHook('onClose', async () => await database.close())
}

export default fp(db, { name: 'db', fastify: '5.x' })
