// listCursor(): a list route's cursor declared once feeds its query
// parameters, its next_page_params schema and its page builders.
import t from 'tap'
import { listCursor } from '../../../plugins/rest/pages.ts'
import { PAGE_SIZE } from '../../../core/queries/sql/page-size.ts'

const cursor = listCursor({ block_number: { type: 'integer', minimum: 0 }, index: { type: 'integer' }, items_count: { type: 'integer', minimum: 1 } },
  { filter: { type: 'string' } })
const rows = Array.from({ length: PAGE_SIZE + 1 }, (_, i) => ({ n: 1000 - i }))
const next = (last: { n: number }) => ({ block_number: last.n, index: 0, items_count: PAGE_SIZE })

t.test('listCursor() gives the query parameters as declared and next_page_params their types, in order, then the extra keys', async (t) => {
  t.same(cursor.params, { block_number: { type: 'integer', minimum: 0 }, index: { type: 'integer' }, items_count: { type: 'integer', minimum: 1 } })
  const schema = cursor.response({ type: 'object' })
  t.same(schema.properties.items, { type: 'array', items: { type: 'object' } })
  t.same(schema.properties.next_page_params, {
    type: ['object', 'null'],
    properties: { block_number: { type: 'integer' }, index: { type: 'integer' }, items_count: { type: 'integer' }, filter: { type: 'string' } },
    additionalProperties: true
  })
  t.same(Object.keys(schema.properties.next_page_params.properties), ['block_number', 'index', 'items_count', 'filter'])
})

t.test('listCursor() lets an extra key restate a cursor key\'s type in place', async (t) => {
  const asNumber = listCursor({ unique_token: { type: 'string' }, items_count: { type: 'integer' } }, { unique_token: { type: 'integer' } })
  t.same(asNumber.response({}).properties.next_page_params.properties, { unique_token: { type: 'integer' }, items_count: { type: 'integer' } })
  t.same(Object.keys(asNumber.response({}).properties.next_page_params.properties), ['unique_token', 'items_count'])
})

t.test('page() answers the cursor alone, and null on the last page', async (t) => {
  const full = cursor.page(rows, (r) => r.n, next)
  t.equal(full.items.length, PAGE_SIZE)
  t.same(full.next_page_params, { block_number: 1000 - PAGE_SIZE + 1, index: 0, items_count: PAGE_SIZE })
  t.same(cursor.page(rows.slice(0, PAGE_SIZE), (r) => r.n, next).next_page_params, null)
  t.same(cursor.page(rows, (r) => r.n, next, 3).items, [1000, 999, 998], 'a smaller page size')
})

t.test('keysetPage() echoes the request\'s parameters but the cursor keys, apikey and type', async (t) => {
  const query = { block_number: 7, index: 3, items_count: 50, filter: 'to', apikey: 'k', type: 'ERC-20', key: 'x' }
  const { next_page_params: params } = cursor.keysetPage(rows, (r) => r.n, next, query)
  t.same(params, { filter: 'to', key: 'x', block_number: 1000 - PAGE_SIZE + 1, index: 0, items_count: PAGE_SIZE })
  t.same(Object.keys(params!), ['filter', 'key', 'block_number', 'index', 'items_count'], 'the echoed parameters first, then the cursor')
  t.same(cursor.keysetPage(rows.slice(0, 2), (r) => r.n, next, query).next_page_params, null)
})
