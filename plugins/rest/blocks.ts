import type { FastifyInstance } from 'fastify'
import { PAGE_SIZE, findBlock, listBlocks } from '../../core/queries/blocks.ts'
import { presentBlock } from './present.ts'
import { block, itemsCount, message, page, query, validationError } from './schemas.ts'

const NUMBER_OR_HASH = '^([0-9]+|0x[A-Fa-f0-9]{64})$'

export async function blockRoutes (app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { type?: string, block_number?: number } }>('/blocks', {
    schema: {
      tags: ['blocks'],
      summary: 'Blocks, newest first (50 a page)',
      querystring: query({ type: { type: 'string', enum: ['block', 'uncle', 'reorg'] }, block_number: { type: 'integer', minimum: 0 }, items_count: itemsCount }),
      response: { 200: page(block, { block_number: { type: 'integer' }, items_count: { type: 'integer' } }), 422: validationError }
    }
  }, async (request) => {
    // A clique chain has no uncles, and reorged blocks are not kept.
    if ((request.query.type ?? 'block') !== 'block') return { items: [], next_page_params: null }
    const rows = await listBlocks(app.db.knex, request.query.block_number)
    const items = rows.slice(0, PAGE_SIZE)
    const last = items[items.length - 1]
    return {
      items: items.map((b) => presentBlock(b, 'list')),
      next_page_params: rows.length > PAGE_SIZE && last !== undefined ? { block_number: last.number, items_count: PAGE_SIZE } : null
    }
  })

  app.get<{ Params: { block_hash_or_number_param: string } }>('/blocks/:block_hash_or_number_param', {
    schema: {
      tags: ['blocks'],
      summary: 'A block by number or hash',
      params: { type: 'object', properties: { block_hash_or_number_param: { type: 'string', pattern: NUMBER_OR_HASH } } },
      querystring: query(),
      response: { 200: block, 404: message, 422: validationError }
    }
  }, async (request, reply) => {
    const id = request.params.block_hash_or_number_param
    const key = id.startsWith('0x') ? { hash: Buffer.from(id.slice(2), 'hex') } : { number: Number(id) }
    const found = 'number' in key && !Number.isSafeInteger(key.number) ? undefined : await findBlock(app.db.knex, key)
    if (found === undefined) return await reply.code(404).send({ message: 'Not found' })
    return presentBlock(found, 'detail')
  })

  app.get('/main-page/blocks', {
    schema: { tags: ['main-page'], summary: 'The 4 newest blocks', querystring: query(), response: { 200: { type: 'array', items: block } } }
  }, async () => (await listBlocks(app.db.knex, undefined, 4)).slice(0, 4).map((b) => presentBlock(b, 'list')))
}
