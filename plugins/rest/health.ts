import type { FastifyInstance } from 'fastify'

/** Blockscout calls the index healthy while it keeps within a few blocks of the node. */
const HEALTHY_LAG_BLOCKS = 5

/** "2025-09-15 13:52:12.000000Z": Blockscout prints an Elixir DateTime here, with a space. */
const elixirTimestamp = (seconds: number): string => new Date(seconds * 1000).toISOString().replace('T', ' ').replace(/\.(\d{3})Z$/, '.$1000Z')

const healthBody = {
  type: 'object',
  properties: {
    healthy: { type: 'boolean' },
    error: { type: ['object', 'null'], properties: { code: { type: 'integer' }, message: { type: 'string' } } },
    metadata: { type: 'object', additionalProperties: true }
  }
}

/** Blockscout's /api/health family, beside /api/v2 (and the gateway's own /health). */
export async function blockscoutHealthRoutes (app: FastifyInstance): Promise<void> {
  app.get('/api/health', { schema: { tags: ['health'], summary: 'Blockscout-style health: 200 healthy, 500 not', response: { 200: healthBody, 500: healthBody } } },
    async (_request, reply) => {
      const [stored, nodeHead] = await Promise.all([
        app.queries.readLatestBlock().catch(() => undefined),
        app.geth.rpc.call<string>('eth_blockNumber').then(Number, () => undefined)
      ])
      const latest = stored === undefined ? undefined : { number: String(stored.number), timestamp: elixirTimestamp(stored.timestamp) }
      const healthy = latest !== undefined && nodeHead !== undefined && nodeHead - Number(latest.number) <= HEALTHY_LAG_BLOCKS
      const error = healthy ? null : { code: 5001, message: latest === undefined ? 'There are no blocks in the DB.' : 'The index is behind the node.' }
      return await reply.code(healthy ? 200 : 500).send({
        healthy,
        error,
        metadata: {
          blocks: {
            healthy,
            latest_block: { db: latest ?? null, cache: latest ?? null, node: { number: nodeHead === undefined ? null : String(nodeHead) } },
            ...(error === null ? {} : { error })
          }
        }
      })
    })
  for (const probe of ['liveness', 'readiness']) {
    app.get(`/api/health/${probe}`, { schema: { tags: ['health'], summary: `Blockscout's ${probe} probe` } },
      async (_request, reply) => await reply.type('text/plain').send('OK'))
  }
}
