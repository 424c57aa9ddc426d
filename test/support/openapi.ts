// Validates responses against Blockscout's own OpenAPI description in
// ../shared/api. OpenAPI 3.0's `nullable` becomes a JSON-schema null type
// first; numbers may arrive as numeric strings, as OpenApiSpex casts them.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv } from 'ajv'
import { parse } from 'yaml'

const SPEC_FILE = new URL('../../../shared/api/blockscout-openapi-11.2.7.yaml', import.meta.url)

export const OPENAPI_SPEC_PRESENT = existsSync(SPEC_FILE)

type Schema = Record<string, unknown>

function withNullTypes (node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withNullTypes)
  if (node === null || typeof node !== 'object') return node
  const out: Schema = {}
  for (const [key, value] of Object.entries(node)) if (!key.startsWith('x-')) out[key] = withNullTypes(value)
  const nullable = out.nullable === true
  delete out.nullable
  if (nullable) {
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null]
    if (typeof out.type === 'string') out.type = [out.type, 'null']
    else return { anyOf: [out, { type: 'null' }] }
  }
  if (out.type === 'number') return { anyOf: [out, { type: 'string', pattern: '^-?[0-9.]+$' }] }
  return out
}

let ajv: Ajv | undefined
let spec: { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>> } | undefined

/** A validator for one operation's response, or undefined when ../shared is absent. */
export function responseValidator (path: string, status = '200') {
  if (!OPENAPI_SPEC_PRESENT) return undefined
  if (ajv === undefined || spec === undefined) {
    spec = loadSpec() as typeof spec
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
    ajv.addSchema(spec as object, 'spec')
  }
  const schema = spec!.paths[path]?.get?.responses[status]?.content?.['application/json']?.schema
  if (schema === undefined) throw new Error(`the spec has no ${status} response for GET ${path}`)
  const validate = ajv.compile({ $ref: `spec#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/get/responses/${status}/content/application~1json/schema` })
  return (body: unknown): string | undefined => validate(body) ? undefined : ajv!.errorsText(validate.errors, { separator: '\n' })
}

/**
 * The spec as the validators take it. Parsing the YAML costs about a second of
 * CPU, in each of the many test files that check responses, so the result is
 * kept as JSON in the temporary directory under a hash of the spec and of this
 * file (which says how it is transformed): a change to either makes a new one.
 */
function loadSpec (): unknown {
  const yamlText = readFileSync(SPEC_FILE, 'utf8')
  const hash = createHash('sha256').update(yamlText).update(readFileSync(fileURLToPath(import.meta.url))).digest('hex').slice(0, 16)
  const cached = join(tmpdir(), `tg-openapi-${hash}.json`)
  try {
    return JSON.parse(readFileSync(cached, 'utf8'))
  } catch {}
  const raw = parse(yamlText)
  // Where the spec and Blockscout's views disagree, the views win (shared/api/rest-v2.md §6):
  // `to` is null for a contract creation although the spec makes it a required address.
  for (const name of ['Transaction', 'TransactionResponse']) {
    const properties = raw.components.schemas[name]?.properties
    if (properties?.to !== undefined) properties.to = { ...properties.to, nullable: true }
  }
  allowBlockscoutViews(raw.components.schemas)
  const spec = withNullTypes(raw)
  // Written aside and renamed: test files running at once never read half a file.
  const partial = `${cached}.${process.pid}`
  writeFileSync(partial, JSON.stringify(spec))
  renameSync(partial, cached)
  return spec
}

/**
 * Where Blockscout's views send more than its spec allows (shared/api/rest-v2.md §5.2, §6):
 * a raw trace of a failed frame has `error` and no `result`; a creation frame has
 * `init` instead of `input` and a result of `address` and `code` (Blockscout's
 * InternalTransaction.internal_transactions_to_raw); an ERC-721 state change's
 * `change` is a list of the tokens moved.
 */
function allowBlockscoutViews (schemas: Record<string, any>): void {
  const trace = schemas.RawTrace?.items
  if (trace !== undefined) {
    trace.properties.error = { type: 'string' }
    trace.properties.action.required = ['from', 'gas', 'value']
    trace.properties.result.required = ['gasUsed']
    trace.properties.result.properties.address = { $ref: '#/components/schemas/AddressHash' }
    trace.properties.result.properties.code = { $ref: '#/components/schemas/HexString' }
  }
  const change = schemas.StateChange?.properties
  if (change !== undefined) {
    change.change = { anyOf: [change.change, { type: 'array', items: { type: 'object', required: ['total', 'direction'] } }] }
  }
}

type Equal = { equal (found: unknown, wanted: unknown, message: string): unknown }

/** Asserts that `body` matches the spec's `status` response of GET `path` (nothing when ../shared is absent). */
export function checkSpec (t: Equal, path: string, body: unknown, status = '200'): void {
  const validate = responseValidator(path, status)
  if (validate !== undefined) t.equal(validate(body), undefined, `${path} matches Blockscout's OpenAPI schema`)
}
