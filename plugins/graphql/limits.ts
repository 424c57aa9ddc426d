// What one operation may cost. Depth counts through fragments (graphql-armor's
// rule); cost is counted as Blockscout counts it (each field 1 + its children,
// a connection `first`/`last` x its children, `addresses` the number of hashes
// x its children), so anything Blockscout accepts stays within the limit.
import { GraphQLError, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql'
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth'
import { createRequire } from 'node:module'
import type { ComplexityEstimator, getComplexity as GetComplexity } from 'graphql-query-complexity'
import { ERROR_CODES, userError } from './errors.ts'

// Its ES build imports graphql's .mjs files, a second copy of graphql beside
// the CommonJS one mercurius builds the schema with: load its CommonJS build.
const { getComplexity } = createRequire(import.meta.url)('graphql-query-complexity') as { getComplexity: typeof GetComplexity }

export function depthLimitRule (maxDepth: number): ValidationRule {
  return maxDepthRule({
    n: maxDepth,
    propagateOnRejection: false,
    onReject: [(context, error) => {
      context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, ''), { extensions: { code: ERROR_CODES.TOO_DEEP } }))
    }]
  }) as unknown as ValidationRule
}

const blockscoutCost: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (field.name === 'addresses') return (Array.isArray(args.hashes) ? args.hashes.length : 0) * childComplexity
  if (field.args.some((a) => a.name === 'first')) return Number(args.first ?? args.last ?? 0) * childComplexity
  return 1 + childComplexity
}

// A cost is a walk of the whole operation with its types, run before every
// execution. mercurius keeps one parsed document per query text, so the cost
// is kept per document and variables: a client repeating its query (an
// explorer page polling) is counted once. Bounded per document, dropped with it.
const COSTS_PER_DOCUMENT = 64
const costs = new WeakMap<DocumentNode, Map<string, number>>()

function costOf (schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>): number {
  const key = JSON.stringify(variables)
  let known = costs.get(document)
  if (known === undefined) costs.set(document, (known = new Map()))
  let cost = known.get(key)
  if (cost === undefined) {
    cost = getComplexity({ schema, query: document, variables, estimators: [blockscoutCost] })
    if (known.size >= COSTS_PER_DOCUMENT) known.clear()
    known.set(key, cost)
  }
  return cost
}

/** Throws the error to answer when the operation (or the subscription, which runs on every event) costs more than `maxComplexity`. */
export function checkComplexity (schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined, maxComplexity: number, what: 'Operation' | 'Subscription' = 'Operation'): void {
  const complexity = costOf(schema, document, variables ?? {})
  if (complexity > maxComplexity) {
    throw userError(`${what} is too complex: complexity is ${complexity} and maximum is ${maxComplexity}`, ERROR_CODES.TOO_COMPLEX)
  }
}
