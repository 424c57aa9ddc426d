// REST (/api/v2, /api/health, /stats/api/v1): every GET route of the app's
// own OpenAPI document (/api-docs/json), so a new route is fuzzed without
// touching this file. Path and query values are hostile or plausible,
// sometimes sent unencoded; declared parameters get values of the wrong
// type, unknown ones are added, some repeated, and real page cursors are
// tampered with.
import fc from 'fast-check'
import { describe, type FuzzRequest } from './http.ts'
import { hostileString, hugeNumber, plausible, wellFormed, type Known } from './hostile.ts'
import { checkRest } from './shapes.ts'
import type { FuzzTarget } from './run.ts'

type Parameter = { name: string, in: string, schema?: { type?: string | string[], enum?: unknown[] } }
type OpenApi = { paths: Record<string, { get?: { parameters?: Parameter[] } }> }
export type Route = { path: string, parameters: Parameter[] }

const FUZZED_PREFIXES = ['/api/v2/', '/api/health', '/stats/api/v1/']
/** GraphQL has a target of its own; the faucet's GET is its status page. */
const EXCLUDED = /graphql/

/** The GET routes to fuzz, from the OpenAPI document the gateway serves. */
export function restRoutes (document: OpenApi): Route[] {
  return Object.entries(document.paths)
    .filter(([path, operations]) => operations.get !== undefined && FUZZED_PREFIXES.some((p) => path.startsWith(p)) && !EXCLUDED.test(path))
    .map(([path, operations]) => ({ path, parameters: operations.get!.parameters ?? [] }))
}

export function createRestTarget (known: Known, routes: Route[]): FuzzTarget {
  if (routes.length === 0) throw new Error('the OpenAPI document lists no REST route to fuzz')
  const value = fc.oneof({ weight: 3, arbitrary: plausible(known) }, { weight: 4, arbitrary: hostileString(known) })
  const request = fc.constantFrom(...routes).chain((route) => fc.record({
    route: fc.constant(route),
    pathValues: fc.tuple(...route.parameters.filter((p) => p.in === 'path').map((p) => pathValue(p, known, value)), fc.constant('')),
    query: queryFor(route, known, value),
    rawPath: fc.boolean()
  })).map(({ route, pathValues, query, rawPath }): FuzzRequest => {
    let i = 0
    const path = route.path.replace(/\{[^}]+\}/g, () => encodeValue(pathValues[i++] ?? '', rawPath))
    const search = query.map(([name, v]) => `${encodeValue(name, rawPath)}=${encodeValue(v, rawPath)}`).join('&')
    return describe({ method: 'GET', path: search === '' ? path : `${path}?${search}` })
  })
  return { name: 'REST', requests: request, check: checkRest }
}

function pathValue (parameter: Parameter, known: Known, value: fc.Arbitrary<string>): fc.Arbitrary<string> {
  if (parameter.name.startsWith('address_hash')) return fc.oneof(fc.constantFrom(...known.tokens, ...known.addresses), value)
  if (parameter.name.startsWith('token_id')) return fc.oneof(fc.nat().map(String), hugeNumber, value)
  if (parameter.name === 'name') return fc.oneof(fc.constantFrom('newTxns', 'averageGasPrice', 'accountsGrowth'), value)
  return value
}

/** Declared parameters with typed or hostile values, unknown or repeated ones, or a real cursor tampered with. */
function queryFor (route: Route, known: Known, value: fc.Arbitrary<string>): fc.Arbitrary<Array<[string, string]>> {
  const declared = route.parameters.filter((p) => p.in === 'query')
  const typed = (p: Parameter): fc.Arbitrary<string> => {
    if (p.schema?.enum !== undefined && p.schema.enum.length > 0) return fc.oneof(fc.constantFrom(...p.schema.enum.map(String)), value)
    if (p.schema?.type === 'integer') return fc.oneof(fc.integer({ min: -5, max: 1_000_000 }).map(String), hugeNumber, value)
    if (p.schema?.type === 'boolean') return fc.oneof(fc.constantFrom('true', 'false', '1', 'yes'), value)
    return value
  }
  const pair = declared.length === 0
    ? fc.tuple(fc.string({ maxLength: 10 }), value)
    : fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...declared).chain((p) => fc.tuple(fc.constant(p.name), typed(p))) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('verbose', '__proto__', 'constructor', 'items_count[]', 'q[]', 'limit', 'type'), value) })
  const pairs = fc.array(pair, { maxLength: 5 })
  if (known.cursors.length === 0 || !declared.some((p) => p.name === 'items_count')) return pairs
  return fc.oneof({ weight: 4, arbitrary: pairs }, { weight: 1, arbitrary: tamperedCursor(known, value) })
}

/** A real next_page_params with one field replaced, dropped or duplicated. */
function tamperedCursor (known: Known, value: fc.Arbitrary<string>): fc.Arbitrary<Array<[string, string]>> {
  return fc.tuple(fc.constantFrom(...known.cursors), fc.nat(), value, fc.integer({ min: 0, max: 2 })).map(([cursor, at, replacement, how]) => {
    const pairs = Object.entries(cursor).map(([k, v]): [string, string] => [k, String(v)])
    if (pairs.length === 0) return pairs
    const i = at % pairs.length
    if (how === 0) pairs[i] = [pairs[i]![0], replacement]
    else if (how === 1) pairs.splice(i, 1)
    else pairs.push([pairs[i]![0], replacement])
    return pairs
  })
}

/**
 * Percent-encoded, or as it is when every character may go on the wire
 * unencoded (undici sends bytes 0x21-0xff as they are): a stray `%`, a quote
 * or a Latin-1 byte then reaches the gateway's URL parser itself.
 */
function encodeValue (text: string, raw: boolean): string {
  if (raw && /^[\u0021-\u00ff]*$/.test(text) && !/[/?#&=]/.test(text)) return text
  return encodeURIComponent(wellFormed(text))
}
