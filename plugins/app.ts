// The app as every plugin and route sees it: Fastify with the JSON-schema
// type provider, which buildApp sets app-wide (withTypeProvider), so a route's
// `request.params`, `query` and `body` are typed from its schema (written
// `as const`) and no route restates them as a generic.
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify'
import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts'

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, JsonSchemaToTsProvider>
