// GraphQL over HTTP (/api/v2/graphql): queries built from the served schema
// (read by introspection, so new fields are fuzzed at once) with hostile
// argument values, huge page sizes, alias bombs, deep and cyclic selections,
// introspection, invalid syntax, wrong variables and malformed transports
// (GET, batches, bodies that are not JSON).
import fc from 'fast-check'
import {
  buildClientSchema, getIntrospectionQuery, getNamedType, isEnumType, isObjectType, isInterfaceType, isScalarType,
  type GraphQLField, type GraphQLNamedType, type GraphQLSchema, type IntrospectionQuery
} from 'graphql'
import { describe, type FuzzRequest, type HttpClient } from './http.ts'
import { hostileString, hugeNumber, plausible, wellFormed, type Known } from './hostile.ts'
import { checkGraphql } from './shapes.ts'
import type { FuzzTarget } from './run.ts'

export const GRAPHQL_PATH = '/api/v2/graphql'
const MAX_SELECTION_DEPTH = 14
const MAX_FIELDS = 4
const ALIASED_MAX_CHARS = 200

export async function readSchema (client: HttpClient): Promise<GraphQLSchema> {
  const response = await client.send({ method: 'POST', path: GRAPHQL_PATH, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: getIntrospectionQuery() }) })
  const { data } = JSON.parse(response.text) as { data?: IntrospectionQuery }
  if (response.status !== 200 || data === undefined) throw new Error(`introspection failed: HTTP ${response.status} ${response.text.slice(0, 200)}`)
  return buildClientSchema(data)
}

export function createGraphqlTarget (known: Known, schema: GraphQLSchema): FuzzTarget {
  const query = schemaQuery(schema, known)
  const document = fc.oneof(
    { weight: 8, arbitrary: query },
    { weight: 1, arbitrary: fc.tuple(query, fc.integer({ min: 2, max: 3000 })).map(([q, n]) => aliasBomb(q, n)) },
    { weight: 1, arbitrary: fc.integer({ min: 5, max: 5000 }).map((n) => `{ ${'block(number: 1) { '.repeat(1)}${'transactions { '.repeat(n)}hash${' }'.repeat(n + 1)} }`) },
    { weight: 1, arbitrary: fc.constantFrom(getIntrospectionQuery(), '{ __schema { types { name fields { name type { name ofType { name ofType { name } } } } } } }', '{ __typename }', '{ __type(name: "Block") { fields { name } } }') },
    { weight: 2, arbitrary: fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), query.map((q) => q.slice(0, Math.floor(q.length / 2))), fc.constantFrom('{', '}', '{ }', 'query', 'mutation { x }', 'subscription { newBlock { hash } }', '{ block(number: ) { hash } }', '#')) }
  )
  const variables = fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) })
  const request = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({ document, variables, operationName: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }) }).map(({ document, variables, operationName }) =>
        post(JSON.stringify({ query: document, variables, operationName })))
    },
    { weight: 1, arbitrary: document.map((d) => describe({ method: 'GET', path: `${GRAPHQL_PATH}?query=${encodeURIComponent(wellFormed(d)).slice(0, 8000)}` })) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.array(document, { minLength: 1, maxLength: 3 }).map((ds) => JSON.stringify(ds.map((query) => ({ query })))),
        fc.constantFrom('', '{}', 'null', '[]', '{"query": 1}', '{"query": null}', '{"query": ["{ __typename }"]}', '{"variables": "x", "query": "{ __typename }"}'),
        fc.string({ unit: 'binary', maxLength: 100 })
      ).map(post)
    }
  )
  return { name: 'GraphQL', requests: request, check: checkGraphql }
}

function post (body: string): FuzzRequest {
  return describe({ method: 'POST', path: GRAPHQL_PATH, headers: { 'content-type': 'application/json' }, body })
}

/**
 * `{ a0: <root field> a1: ... }`: the same root selection `n` times under
 * aliases. A long selection is replaced by a short one: the body limit (413)
 * would refuse it before any alias is counted.
 */
export function aliasBomb (query: string, n: number): string {
  const inner = query.length > ALIASED_MAX_CHARS ? 'block(number: 1) { hash transactions { hash } }' : query.replace(/^\{\s*/, '').replace(/\s*\}$/, '')
  return `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${inner}`).join(' ')} }`
}

/** An operation of one root field with arguments and a selection of its type's fields, recursing through object fields. */
export function schemaQuery (schema: GraphQLSchema, known: Known, operation: 'query' | 'subscription' = 'query'): fc.Arbitrary<string> {
  const root = operation === 'query' ? schema.getQueryType() : schema.getSubscriptionType()
  if (root === null || root === undefined) throw new Error(`the schema has no ${operation} type`)
  const literal = argumentLiteral(known)
  const fields = Object.values(root.getFields())
  const keyword = operation === 'query' ? '' : 'subscription '
  return fc.tuple(fc.constantFrom(...fields), fc.infiniteStream(fc.nat()), fc.infiniteStream(literal), fc.integer({ min: 1, max: MAX_SELECTION_DEPTH }))
    .map(([field, choices, literals, depth]) => `${keyword}{ ${fieldText(field, choices, literals, depth)} }`)
}

type Stream<T> = { next (): IteratorResult<T> }
const take = <T>(stream: Stream<T>): T => stream.next().value as T

function fieldText (field: GraphQLField<unknown, unknown>, choices: Stream<number>, literals: Stream<(type: GraphQLNamedType) => string>, depth: number): string {
  const args = field.args.filter((arg) => take(choices) % 4 !== 0).map((arg) => `${arg.name}: ${take(literals)(getNamedType(arg.type))}`)
  const head = args.length === 0 ? field.name : `${field.name}(${args.join(', ')})`
  const type = getNamedType(field.type)
  if (!isObjectType(type) && !isInterfaceType(type)) return head
  const children = Object.values(type.getFields())
  const leaves = children.filter((f) => !isObjectType(getNamedType(f.type)) && !isInterfaceType(getNamedType(f.type)))
  const pool = depth <= 1 && leaves.length > 0 ? leaves : children
  const count = 1 + (take(choices) % MAX_FIELDS)
  const picked = new Set(Array.from({ length: count }, () => pool[take(choices) % pool.length]!))
  return `${head} { ${[...picked].map((f) => fieldText(f, choices, literals, depth - 1)).join(' ')} }`
}

/** A literal for an argument of the named type: right, wrong-typed, hostile or huge. */
function argumentLiteral (known: Known): fc.Arbitrary<(type: GraphQLNamedType) => string> {
  const text = fc.oneof(plausible(known), hostileString(known)).map((s) => JSON.stringify(wellFormed(s)))
  const int = fc.oneof(fc.integer({ min: -2, max: 300 }).map(String), fc.constantFrom('2147483648', '1000000000', '-2147483649', '1e9', '0.5'), hugeNumber.map((n) => JSON.stringify(n)))
  return fc.tuple(text, int, fc.nat(), fc.nat({ max: 9 })).map(([s, i, pick, wrong]) => (type: GraphQLNamedType) => {
    if (wrong === 0) return [s, i, 'null', 'true', '[]', '{}', '$undeclared'][pick % 7]!
    if (isEnumType(type)) { const values = type.getValues(); return values[pick % values.length]?.name ?? s }
    if (isScalarType(type) && (type.name === 'Int' || type.name === 'Float')) return i
    if (isScalarType(type) && type.name === 'Boolean') return pick % 2 === 0 ? 'true' : 'false'
    return pick % 5 === 0 ? `[${s}, ${s}]` : s
  })
}
