// The REST API under test: the /api/v2 routes (plugins/rest) on their own,
// over the benchmark's database. No node and no indexer: the database was
// filled without a chain, and an indexer would roll it back to the node's.
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import pg from 'pg'
import { PREPARED_SESSION_SETUP, type Database } from '../../../core/db/index.ts'
import { createQueries } from '../../../core/queries/index.ts'
import { restV2 } from '../../../plugins/rest/index.ts'
import auth from '../../../plugins/auth/index.ts'
import rateLimit, { type RateLimitOptions } from '../../../plugins/rate-limit/index.ts'
import { registerReadStandIns } from '../../lib/stand-ins.ts'

export type RestServer = { app: FastifyInstance, url: string, close (): Promise<void> }

/** The database and its read model, as plugins/db decorates them (the other bench servers use it too). */
export function decorateDatabase (app: FastifyInstance, database: Database): void {
  app.decorate('db', database)
  app.decorate('queries', createQueries({ knex: database.knex, prepared: database.prepared }))
}

/** The benchmark's database under the name auth and rate-limit depend on; left open on close, since every server shares it. */
const sharedDb = fp(async (app: FastifyInstance, { database }: { database: Database }) => { decorateDatabase(app, database) }, { name: 'db' })

/** With `access`, the routes sit behind the app's own access layer (plugins/auth, plugins/rate-limit) set so. */
export async function startRestServer (database: Database, access?: RateLimitOptions): Promise<RestServer> {
  const app = Fastify({ logger: false })
  if (access === undefined) decorateDatabase(app, database)
  else {
    await app.register(sharedDb, { database })
    await app.register(auth, { adminToken: undefined })
    await app.register(rateLimit, access)
  }
  await registerReadStandIns(app)
  await app.register(restV2, { prefix: '/api/v2' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  return { app, url: `http://127.0.0.1:${port}`, close: async () => await app.close() }
}

/** `name` when the gateway ran it as a named prepared statement: the floor prepares it too. */
export type Statement = { name?: string, sql: string, bindings: unknown[] }

type QueryConfig = string | { name?: string, text: string, values?: unknown[] }
type ClientQuery = (this: pg.Client, config: QueryConfig, ...rest: unknown[]) => unknown

/**
 * The SQL one request runs, in order, as pg sends it (knex's queries and the
 * prepared ones alike): the raw floor replays exactly this. A connection's
 * session setup, sent when the request happened to open one, is not the
 * request's: the floor's pool sets its sessions up the same way.
 */
export async function captureStatements (server: RestServer, path: string): Promise<{ statements: Statement[], body: string }> {
  const statements: Statement[] = []
  const prototype = pg.Client.prototype as unknown as { query: ClientQuery }
  const original = prototype.query
  prototype.query = function (config, ...rest) {
    if (config === PREPARED_SESSION_SETUP) return original.call(this, config, ...rest)
    if (typeof config === 'string') statements.push({ sql: config, bindings: Array.isArray(rest[0]) ? rest[0] : [] })
    else statements.push({ name: config.name, sql: config.text, bindings: config.values ?? [] })
    return original.call(this, config, ...rest)
  }
  try {
    const response = await server.app.inject({ method: 'GET', url: path })
    if (response.statusCode !== 200) throw new Error(`GET ${path}: HTTP ${response.statusCode} ${response.body.slice(0, 200)}`)
    return { statements, body: response.body }
  } finally {
    prototype.query = original
  }
}
