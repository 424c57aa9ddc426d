import { query, validationError, type RestApp } from './schemas.ts'

const indexingStatusSchema = {
  tags: ['main-page'],
  summary: 'Whether indexing has finished, with the indexed ratio',
  querystring: query(),
  response: {
    200: {
      type: 'object',
      required: ['finished_indexing', 'finished_indexing_blocks', 'indexed_blocks_ratio', 'indexed_internal_transactions_ratio'],
      properties: {
        finished_indexing: { type: 'boolean' },
        finished_indexing_blocks: { type: 'boolean' },
        indexed_blocks_ratio: { type: 'string', description: 'A decimal string, as Blockscout sends it' },
        indexed_internal_transactions_ratio: { type: ['string', 'null'] }
      }
    },
    422: validationError
  }
} as const

export async function mainPageRoutes (app: RestApp): Promise<void> {
  app.get('/main-page/indexing-status', { schema: indexingStatusSchema }, async () => {
    const nodeHead = Number(await app.geth.rpc.call<string>('eth_blockNumber'))
    return await app.queries.readIndexingStatus(nodeHead)
  })
}
