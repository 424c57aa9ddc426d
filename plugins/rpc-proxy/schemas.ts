// Route schemas for the JSON-RPC endpoint. The body is parsed and checked by
// core/json-rpc (JSON-RPC has its own error codes), so these schemas document
// the route for /api-docs; they do not validate.

const request = {
  type: 'object',
  required: ['jsonrpc', 'method'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { type: ['string', 'number', 'null'] },
    method: { type: 'string', examples: ['eth_blockNumber'] },
    params: { type: 'array' }
  }
}

const response = {
  type: 'object',
  properties: {
    jsonrpc: { type: 'string' },
    id: { type: ['string', 'number', 'null'] },
    result: {},
    error: {
      type: 'object',
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} }
    }
  }
}

export const jsonRpcRouteSchema = {
  tags: ['json-rpc'],
  summary: 'Ethereum JSON-RPC 2.0 (single request or batch)',
  description: 'The allowed eth_/net_/web3_ methods, and for premium API keys the debug_trace* methods (Geth\'s built-in tracers) and txpool_status (-32004 without one); every other method answers -32601. See docs/json-rpc.md for the list and error codes.',
  body: { oneOf: [request, { type: 'array', items: request }] },
  response: {
    200: { description: 'A response, an array of responses for a batch, or an empty body for a single notification', oneOf: [response, { type: 'array', items: response }] },
    204: { description: 'A batch of notifications only', type: 'null' },
    413: { description: 'The body is larger than RPC_MAX_BODY_BYTES', ...response },
    503: { description: 'The node did not answer (single request)', ...response }
  }
}
