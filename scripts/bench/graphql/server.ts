// The APIs under test: the REST /api/v2 routes and the GraphQL plugin on one
// Fastify over bench:rest's database. The database was filled without a chain,
// so there is no node and no indexer: the GraphQL plugin's `geth` and `indexer`
// dependencies are met by a client pointed at no node (only Transaction.r/s/v
// would call it, and the benchmark's query does not ask for them) and indexer
// events nobody publishes (subscriptions are not measured). The GraphQL
// subscription tests (test/plugins/graphql) publish on them themselves. The
// access layer and the read plugins it and the REST routes depend on are
// stand-ins (stand-ins.ts): nothing limited, no verified ABI, no node.
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import websocket from '../../../plugins/websocket/index.ts'
import type { Config } from '../../../core/config.ts'
import type { Database } from '../../../core/db/index.ts'
import { createRpcClient } from '../../../core/rpc/client.ts'
import { createIndexerEvents } from '../../../core/indexer/events.ts'
import { decorateDatabase } from '../rest/server.ts'
import graphql from '../../../plugins/graphql/index.ts'
import { restV2 } from '../../../plugins/rest/index.ts'
import { registerOpenAccessStandIns, registerReadStandIns } from '../../lib/stand-ins.ts'

export type ApiServer = { app: FastifyInstance, url: string, close (): Promise<void> }

/** No node listens on the discard port; a call would fail fast rather than hang. */
const NO_NODE_URL = 'http://127.0.0.1:9'

export async function startApiServer (database: Database, options: Config['graphql']): Promise<ApiServer> {
  const app = Fastify({ logger: false })
  decorateDatabase(app, database)
  // Only the parts the GraphQL plugin reads: `geth.rpc` and the indexer's events.
  const geth = { rpc: createRpcClient({ url: NO_NODE_URL, timeoutMs: 1000 }) } as unknown as FastifyInstance['geth']
  const indexer = { events: createIndexerEvents(app.log) } as unknown as FastifyInstance['indexer']
  await app.register(fp(async (scope) => { scope.decorate('geth', geth) }, { name: 'geth' }))
  await app.register(fp(async (scope) => { scope.decorate('indexer', indexer) }, { name: 'indexer' }))
  await app.register(fp(async () => {}, { name: 'db' }))
  await registerOpenAccessStandIns(app)
  await registerReadStandIns(app)
  await app.register(restV2, { prefix: '/api/v2' })
  // As buildApp: the one WebSocket server, at the root.
  await app.register(websocket)
  await app.register(graphql, options)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  return { app, url: `http://127.0.0.1:${port}`, close: async () => await app.close() }
}
