// What an action of the Etherscan-style API is: its query parameters (a JSON
// schema: validated per action and merged into /api's documented
// querystring), the shape of its result and its handler.
import type { Knex } from 'knex'
import type { Envelope, JsonRpcText } from './envelope.ts'
import type { Queries } from '../../core/queries/index.ts'
import type { Decoder } from '../../core/decode/index.ts'
import type { JsonRpcHandler } from '../../core/json-rpc/handler.ts'

/**
 * The read model, the database itself for verification's own tables
 * (core/verify/store.ts), the decoder the REST API decodes inputs with, and
 * the JSON-RPC endpoint's handler the proxy module calls through.
 */
export type ActionContext = { db: Knex, queries: Queries, decoder: Decoder, jsonRpc: JsonRpcHandler }

export type EtherscanAction = {
  summary: string
  /** Query parameters besides module and action, as JSON-schema properties. */
  params: Record<string, { type: string, description: string }>
  /** Parameters that must be present: Blockscout's message is "Query parameter 'x' is required". */
  required: string[]
  /**
   * The `result` of a success. /api's response schema is the anyOf of these,
   * and the serializer writes a result in the first one it validates against:
   * every object here must require its properties and allow no others
   * (strictObject), or it would take (and strip) another action's result.
   */
  result: object
  /** The proxy module's actions answer JSON-RPC's object, not the envelope: their `result` is not the envelope's. */
  answersAsJsonRpc?: boolean
  run: (params: Record<string, string>, context: ActionContext) => Promise<Envelope | JsonRpcText>
}

/**
 * An object of the named fields in this order (the serializer writes them so),
 * all required, no others: strings (Etherscan writes every number as one)
 * unless `schemas` gives a field another schema.
 */
export function strictObject (names: string[], schemas: Record<string, object> = {}): object {
  const properties = Object.fromEntries(names.map((n) => [n, schemas[n] ?? { type: 'string' }]))
  return { type: 'object', required: names, additionalProperties: false, properties }
}

export const listOf = (items: object): object => ({ type: 'array', items })
