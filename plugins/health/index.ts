import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { checkHealth } from '../../core/health.ts'

export type HealthPluginOptions = { chainId: number, cliquePeriod: number }

const component = (statuses: string[]) => ({
  type: 'object',
  properties: { status: { type: 'string', enum: statuses } }
})

const healthBody = {
  type: 'object',
  required: ['status', 'chain_id', 'geth', 'database'],
  properties: {
    status: { type: 'string', enum: ['ok', 'degraded', 'unavailable'] },
    chain_id: { type: 'integer' },
    geth: {
      type: 'object',
      properties: {
        ...component(['ok', 'unavailable']).properties,
        head: { type: ['integer', 'null'] },
        head_age_s: { type: ['integer', 'null'], description: 'Seconds since the head block was sealed' },
        restarts: { type: 'integer', description: 'Times the supervisor restarted Geth' }
      }
    },
    database: component(['ok', 'unavailable']),
    indexer: {
      type: 'object',
      properties: {
        role: { type: 'string', enum: ['starting', 'writer', 'reader', 'failed', 'stopped'], description: 'writer: this instance holds the indexer lock' },
        enabled: { type: 'boolean', description: 'false: INDEXER_ENABLED=false, this instance never indexes (its role stays reader)' },
        head: { type: ['integer', 'null'], description: 'Highest indexed block' },
        lag_blocks: { type: ['integer', 'null'], description: 'Blocks the index is behind the node' }
      }
    },
    upstreams: {
      type: 'array',
      description: 'RPC_UPSTREAMS, when set: the nodes JSON-RPC uses while the local Geth does not answer',
      items: {
        type: 'object',
        properties: {
          url: { type: 'string', description: 'The URL\'s scheme, host and port (its path may hold a key)' },
          status: { type: 'string', enum: ['ok', 'behind', 'wrong-chain', 'unavailable'], description: 'behind: more than RPC_UPSTREAM_MAX_LAG_BLOCKS behind the best head known, not used for latest' },
          head: { type: ['integer', 'null'], description: 'Its head at the last check' },
          used: { type: 'integer', description: 'Requests it answered for the local node' }
        }
      }
    }
  }
}

/** GET /health: 200 when the node and the database answer (degraded if the chain stalls), 503 otherwise. */
async function health (app: FastifyInstance, options: HealthPluginOptions): Promise<void> {
  app.get('/health', {
    schema: {
      tags: ['health'],
      summary: 'Gateway, node and database health',
      response: { 200: healthBody, 503: healthBody }
    }
  }, async (_request, reply) => {
    const report = await checkHealth({
      rpc: app.geth.rpc,
      db: app.db.knex,
      chainId: options.chainId,
      cliquePeriod: options.cliquePeriod,
      restarts: () => app.geth.supervisor?.restarts ?? 0,
      indexer: () => app.indexer.status(),
      upstreams: app.jsonRpcUpstreams === undefined ? undefined : () => app.jsonRpcUpstreams!.report()
    })
    return await reply.code(report.status === 'unavailable' ? 503 : 200).send(report)
  })
}

export default fp(health, { name: 'health', fastify: '5.x', dependencies: ['db', 'geth', 'indexer', 'rpc-proxy'] })
