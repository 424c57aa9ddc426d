// /api/v2/openapi: the OpenAPI 3 document of the REST API, generated from the
// routes' own schemas; /api-docs stays the interactive page.
import t from 'tap'
import { Ajv } from 'ajv'
import type { FastifyInstance } from 'fastify'
import { build } from '../../helper.ts'
import { waitForIndexed } from '../../support/indexer.ts'

const { app } = await build(t)
await waitForIndexed(app)

/** Every GET route the app serves, read from Fastify's own route tree. */
function getRoutes (app: FastifyInstance): string[] {
  const stack: string[] = []
  const routes: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false, method: 'GET' }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([^)]+)\))?$/.exec(line)
    if (match === null) continue
    const depth = match[1]!.length / 4
    stack.length = depth
    const path = (stack[depth - 1] ?? '') + match[2]
    stack.push(path)
    if (match[3] !== undefined) routes.push(path)
  }
  return routes
}

type Operation = { parameters?: Array<{ in: string, name: string, schema: object }>, responses: Record<string, { content?: Record<string, { schema: object }> }> }
type OpenApiDocument = { openapi: string, paths: Record<string, { get?: Operation }> }

const document = (await app.inject({ method: 'GET', url: '/api/v2/openapi' })).json() as OpenApiDocument

t.test('the document is OpenAPI 3 and holds only the REST API', async (t) => {
  t.match(document.openapi, /^3\./)
  const paths = Object.keys(document.paths)
  t.ok(paths.length > 0)
  t.same(paths.filter((p) => !p.startsWith('/api/')), [], 'no JSON-RPC or gateway health paths')
})

t.test('every /api/v2 route appears with its parameters and response schema', async (t) => {
  // GraphQL shares the prefix; its contract is its SDL, not a response schema.
  // The router ignores trailing slashes (Blockscout's spec writes /api/v2/tokens/): no route ends with one.
  const routes = getRoutes(app).filter((r) => r.startsWith('/api/v2/') && r !== '/api/v2/openapi' && !r.startsWith('/api/v2/graphql') && !r.endsWith('/'))
  t.ok(routes.length >= 12, `${routes.length} routes under /api/v2`)
  t.ok(routes.includes('/api/v2/search') && routes.includes('/api/v2/transactions/:transaction_hash_param'), 'the route tree was read')
  for (const route of routes) {
    const path = route.replace(/:([A-Za-z_]+)/g, '{$1}')
    const operation = document.paths[path]?.get
    if (operation === undefined) {
      t.fail(`${path} is missing from the document`)
      continue
    }
    t.ok(operation.responses['200']?.content?.['application/json']?.schema, `${path}: 200 response schema`)
    for (const name of route.match(/:([A-Za-z_]+)/g) ?? []) {
      t.ok(operation.parameters?.some((p) => p.in === 'path' && p.name === name.slice(1)), `${path}: path parameter ${name.slice(1)}`)
    }
  }
})

t.test('the documented schemas describe what the routes answer', async (t) => {
  const ajv = new Ajv({ strict: false, allErrors: true })
  for (const path of ['/api/v2/blocks', '/api/v2/search/check-redirect']) {
    const schema = document.paths[path]!.get!.responses['200']!.content!['application/json']!.schema
    const url = path === '/api/v2/blocks' ? path : `${path}?q=1`
    const body = (await app.inject({ method: 'GET', url })).json()
    t.ok(ajv.validate(withNullable(schema) as object, body), `${path}: ${ajv.errorsText()}`)
  }
  const search = document.paths['/api/v2/search']!.get!
  t.ok(search.parameters?.some((p) => p.name === 'q'), 'query parameters are documented by name')
})

t.test('/api-docs serves the interactive page over the full document', async (t) => {
  const page = await app.inject({ method: 'GET', url: '/api-docs/' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /text\/html/)
  const full = (await app.inject({ method: 'GET', url: '/api-docs/json' })).json() as OpenApiDocument
  for (const path of Object.keys(document.paths)) t.ok(full.paths[path], `${path} is in /api-docs/json`)
})

/** OpenAPI 3.0 writes null as `nullable: true`; ajv wants a null type. */
function withNullable (node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withNullable)
  if (node === null || typeof node !== 'object') return node
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withNullable(v)]))
  if (out.nullable === true) {
    delete out.nullable
    return { anyOf: [out, { type: 'null' }] }
  }
  return out
}
