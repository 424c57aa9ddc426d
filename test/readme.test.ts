// docs/ documents every configuration variable, error code and method; these
// checks keep it in step with the code.
import t from 'tap'
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { VARIABLES } from '../core/config.ts'
import { ERROR_CODES } from '../core/errors.ts'
import { JSON_RPC_ERRORS } from '../core/json-rpc/errors.ts'
import { METHODS } from '../core/json-rpc/methods.ts'
import { ERROR_CODES as GRAPHQL_ERROR_CODES } from '../plugins/graphql/errors.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DOCS = join(ROOT, 'docs')

const read = async (path: string): Promise<string> => await readFile(join(ROOT, path), 'utf8')
const docFiles = (await readdir(DOCS)).filter((name) => name.endsWith('.md')).sort()
const documents = new Map<string, string>()
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

t.test('every gateway error code is in the table of docs/errors.md', async (t) => {
  for (const code of ERROR_CODES) t.match(doc('errors.md'), `| \`${code}\` |`, code)
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
