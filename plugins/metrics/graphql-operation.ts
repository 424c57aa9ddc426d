// The operation type of a GraphQL request, for its metric: known once mercurius
// has parsed the document, which happens after routing, so the graphql plugin
// hands it over here and the request's onResponse hook reads it back.
import type { FastifyRequest } from 'fastify'
import type { DocumentNode, OperationDefinitionNode } from 'graphql'
import type { GraphqlOperationType } from '../../core/metrics/index.ts'

/** GraphQL's routes (plugins/graphql): its HTTP requests are timed by operation type, its WebSockets counted as graphql. */
export const GRAPHQL_ROUTE = /^\/api\/v[12]\/graphql$/

const operations = new WeakMap<FastifyRequest, GraphqlOperationType>()

/** Called from mercurius' preExecution hook: the document is parsed and valid. */
export function rememberOperationType (context: { reply?: { request: FastifyRequest } }, document: DocumentNode): void {
  const request = context.reply?.request
  if (request === undefined) return
  const definitions = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')
  const name = (request.body as { operationName?: unknown } | undefined)?.operationName ?? (request.query as { operationName?: unknown } | undefined)?.operationName
  const chosen = definitions.length === 1 ? definitions[0] : definitions.find((d) => d.name?.value === name)
  if (chosen !== undefined) operations.set(request, chosen.operation)
}

/** 'invalid' when the request never reached execution (parse or validation errors, refused batches). */
export function operationTypeOf (request: FastifyRequest): GraphqlOperationType {
  return operations.get(request) ?? 'invalid'
}
