// The README and docs/ document every configuration variable, error code,
// method and route; these checks keep them in step with the code, and keep
// every document reachable from the README.
import t from 'tap'
import { existsSync } from 'node:fs'
import { readFile, readdir } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import knex from 'knex'
import { VARIABLES } from '../core/config.ts'
import * as coreErrors from '../core/errors.ts'
import { JSON_RPC_ERRORS } from '../core/json-rpc/errors.ts'
import { METHODS } from '../core/json-rpc/methods.ts'
import { ERROR_CODES as GRAPHQL_ERROR_CODES } from '../plugins/graphql/errors.ts'
import apiDocs from '../plugins/api-docs/index.ts'
import { ETHERSCAN_MODULES } from '../plugins/etherscan/actions.ts'
import rest from '../plugins/rest/index.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DOCS = join(ROOT, 'docs')

const read = async (path: string): Promise<string> => await readFile(join(ROOT, path), 'utf8')
const readme = await read('README.md')
const docFiles = (await readdir(DOCS)).filter((name) => name.endsWith('.md')).sort()
const documents = new Map<string, string>([['README.md', readme]])
for (const name of docFiles) documents.set(`docs/${name}`, await read(`docs/${name}`))

const doc = (name: string): string => {
  const text = documents.get(`docs/${name}`)
  if (text === undefined) throw new Error(`docs/${name} is missing`)
  return text
}

const rowOf = (text: string, name: string): string | undefined => text.split('\n').find((line) => line.startsWith(`| \`${name}\` |`))
const shownDefault = (name: string): string | undefined => {
  const fallback = VARIABLES[name]!.default
  // DATA_DIR's default is shown as written (./data), not resolved.
  return fallback === undefined || name === 'DATA_DIR' ? undefined : `\`${fallback}\``
}

t.test('every configuration variable has a row in docs/configuration.md with its default', async (t) => {
  const configuration = doc('configuration.md')
  for (const name of Object.keys(VARIABLES)) {
    const row = rowOf(configuration, name)
    t.ok(row, `${name} has a row`)
    const fallback = shownDefault(name)
    if (fallback !== undefined) t.match(row, fallback, `${name} shows its default`)
  }
})

t.test('a variable\'s row shows its default in every document that has one', async (t) => {
  for (const [file, text] of documents) {
    for (const name of Object.keys(VARIABLES)) {
      const row = rowOf(text, name)
      const fallback = shownDefault(name)
      if (row !== undefined && fallback !== undefined) t.match(row, fallback, `${file}: ${name}`)
    }
  }
})

// Both ways, over the module's exports: a coded error without its row, or a row without its error, fails.
t.test('the coded errors of core/errors.ts and the table of docs/errors.md name the same codes', async (t) => {
  const exported = Object.values(coreErrors as Record<string, unknown>)
    .filter((value): value is new () => { code?: string } => typeof value === 'function' && value.prototype instanceof Error)
    .map((E) => new E().code)
    .filter((code): code is string => code !== undefined)
  const documented = [...doc('errors.md').matchAll(/^\| `(GW_ERR_[A-Z0-9_]+)` \|/gm)].map((m) => m[1]!)
  t.ok(exported.length > 20, `${exported.length} coded errors exported`)
  t.same([...exported].sort(), [...new Set(documented)].sort())
})

t.test('every JSON-RPC error code is in the table of docs/json-rpc.md with its message', async (t) => {
  for (const { code, message } of Object.values(JSON_RPC_ERRORS)) t.match(doc('json-rpc.md'), `| \`${code}\` | ${message} |`, String(code))
})

t.test('every allowed JSON-RPC method is listed in docs/json-rpc.md', async (t) => {
  for (const method of Object.keys(METHODS)) t.match(doc('json-rpc.md'), `\`${method}\``, method)
})

t.test('every GraphQL error code is in the table of docs/graphql.md', async (t) => {
  for (const code of Object.values(GRAPHQL_ERROR_CODES)) t.match(doc('graphql.md'), `| \`${code}\` |`, code)
})

/**
 * The REST routes as the app registers them: the rest plugin (and api-docs,
 * which serves /api/v2/openapi) on stand-ins for the plugins it depends on
 * (db, geth, indexer, nft-metadata, verify, interpreter, address-names).
 * Routes only touch those when a request comes, so neither Geth nor
 * PostgreSQL is started: the knex client never connects.
 */
async function registeredRestRoutes (): Promise<string[]> {
  const app = Fastify()
  const routes = new Set<string>()
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat()
    if (methods.includes('GET') && route.url.startsWith('/api/')) routes.add(`GET ${withoutTrailingSlash(route.url)}`)
  })
  const db = knex({ client: 'pg', connection: 'postgres://127.0.0.1:1/unused', pool: { min: 0, max: 1 } })
  const standIn = (name: string, decorator: string, value: object) =>
    fp(async (scope: FastifyInstance) => { scope.decorate(decorator, value) }, { name })
  try {
    await app.register(apiDocs, { version: '0.0.0' })
    await app.register(standIn('db', 'db', { knex: db }))
    await app.register(standIn('geth', 'geth', { rpc: {} }))
    await app.register(standIn('indexer', 'indexer', {}))
    await app.register(standIn('nft-metadata', 'nftMetadata', {}))
    await app.register(standIn('verify', 'verifier', { limits: { maxBodyBytes: 1024 * 1024, maxSourcesBytes: 1024 * 1024 } }))
    await app.register(fp(async (scope: FastifyInstance) => {
      scope.decorate('decoder', {} as FastifyInstance['decoder'])
      scope.decorate('interpreter', {} as FastifyInstance['interpreter'])
    }, { name: 'interpreter' }))
    await app.register(standIn('address-names', 'addressNames', {}))
    await app.register(rest)
    await app.ready()
  } finally {
    await app.close()
    await db.destroy()
  }
  return [...routes].map((route) => route.replace(/:[A-Za-z_]+/g, '{}')).sort()
}

const withoutTrailingSlash = (path: string): string => path.length > 1 ? path.replace(/\/$/, '') : path

/** `GET /api/...` paths written in backticks, parameters as {anything}, query strings dropped. */
function documentedRoutes (text: string): string[] {
  return [...text.matchAll(/`GET (\/api\/[^`?\s]*)/g)].map(([, path]) => `GET ${withoutTrailingSlash(path!).replace(/\{[^}]+\}/g, '{}')}`)
}

t.test('every Etherscan-style module and action has a row in docs/etherscan-api.md', async (t) => {
  const text = doc('etherscan-api.md')
  for (const [module, byAction] of Object.entries(ETHERSCAN_MODULES)) {
    const section = text.split('\n## ').find((part) => part.startsWith(`${module}\n`))
    if (section === undefined) {
      t.fail(`no section "## ${module}"`)
      continue
    }
    for (const action of Object.keys(byAction)) t.ok(rowOf(section, action), `${module}.${action}`)
  }
})

t.test('every REST route the app registers is listed in docs/rest-api.md, and nothing else', async (t) => {
  const registered = await registeredRestRoutes()
  const listed = new Set(documentedRoutes(doc('rest-api.md')))
  t.ok(registered.length > 50, `found the routes (${registered.length})`)
  for (const route of registered) t.ok(listed.has(route), `${route} is listed`)
  for (const route of listed) t.ok(registered.includes(route), `${route} is a route`)
})

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string): string => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
const anchorsOf = (text: string): Set<string> =>
  new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => anchorOf(heading!)))

/** Relative links ([text](target)) outside code blocks. */
function linksOf (text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '')
  return [...prose.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map(([, target]) => target!).filter((target) => !/^[a-z]+:/.test(target))
}

t.test('every relative link of the README and docs/ resolves, anchors included', async (t) => {
  for (const [file, text] of documents) {
    for (const link of linksOf(text)) {
      const [path, anchor] = link.split('#') as [string, string | undefined]
      const target = path === '' ? file : relative(ROOT, join(ROOT, dirname(file), path))
      t.ok(existsSync(join(ROOT, target)), `${file}: ${link} exists`)
      if (anchor !== undefined && target.endsWith('.md')) {
        const targetText = documents.get(target) ?? await read(target)
        t.ok(anchorsOf(targetText).has(anchor), `${file}: ${link} names a heading`)
      }
    }
  }
})

t.test('the README links every document in docs/', async (t) => {
  const linked = new Set(linksOf(readme).map((link) => link.split('#')[0]))
  t.ok(docFiles.length >= 9, 'docs/ holds the documents')
  for (const name of docFiles) t.ok(linked.has(`docs/${name}`), `docs/${name} is linked`)
})
