// Where GraphQL is served; shared by the plugin and its disabled stand-in,
// which must not import anything of GraphQL.

/** Queries, and subscriptions over WebSocket on the same path. */
export const GRAPHQL_PATH = '/api/v2/graphql'
/** Blockscout's path: queries only (Blockscout's subscriptions speak Phoenix channels, not graphql-ws). */
export const GRAPHQL_V1_PATH = '/api/v1/graphql'
export const GRAPHIQL_PATH = '/graphiql'
/** The SDL, as Blockscout serves it. */
export const SCHEMA_PATH = '/schema.graphql'
