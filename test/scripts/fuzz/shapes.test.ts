import t from 'tap'
import { checkEtherscan, checkGraphql, checkJsonRpc, checkRest } from '../../../scripts/fuzz/shapes.ts'

const answer = (status: number, body: unknown, contentType = 'application/json') =>
  ({ status, contentType, text: typeof body === 'string' ? body : JSON.stringify(body) })

t.test('checkJsonRpc() passes documented errors and results, single and batched', async (t) => {
  t.equal(checkJsonRpc(answer(200, { jsonrpc: '2.0', id: 1, result: '0x1' })), undefined)
  t.equal(checkJsonRpc(answer(200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })), undefined)
  t.equal(checkJsonRpc(answer(413, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } })), undefined)
  t.equal(checkJsonRpc(answer(200, [{ jsonrpc: '2.0', id: 1, result: 1 }, { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'x' } }])), undefined)
})

t.test('checkJsonRpc() fails a 5xx, -32603 while Geth runs, an undocumented code, a bad shape or text', async (t) => {
  t.match(checkJsonRpc(answer(500, { message: 'Internal server error' })), /HTTP 500/)
  t.match(checkJsonRpc(answer(200, { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } })), /undocumented error code -32603/)
  t.match(checkJsonRpc(answer(200, { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'x' } })), /undocumented error code -1/)
  t.match(checkJsonRpc(answer(200, { jsonrpc: '2.0', id: 1, result: 1, error: { code: -32600, message: 'x' } })), /neither or both/)
  t.match(checkJsonRpc(answer(200, [{ jsonrpc: '2.0', id: 1, result: 1 }, { id: 2 }])), /batch item: not a JSON-RPC 2.0 response/)
  t.match(checkJsonRpc(answer(200, [])), /empty batch/)
  t.match(checkJsonRpc(answer(400, 'Bad Request', 'text/plain')), /not JSON/)
})

t.test('checkRest() wants JSON with a message or errors[] on a 4xx', async (t) => {
  t.equal(checkRest(answer(200, { items: [] })), undefined)
  t.equal(checkRest(answer(200, 'OK', 'text/plain')), undefined, 'a liveness probe')
  t.equal(checkRest(answer(404, { message: 'Not found' })), undefined)
  t.equal(checkRest(answer(422, { errors: [{ title: 'Invalid value', source: { pointer: '/x' } }] })), undefined)
  t.match(checkRest(answer(400, { statusCode: 400 })), /without a message/)
  t.match(checkRest(answer(422, { errors: [] })), /without a message/)
  t.match(checkRest(answer(503, { message: 'The database is unavailable' })), /HTTP 503/)
  t.match(checkRest(answer(200, '<html>', 'application/json')), /not JSON/)
})

t.test('checkGraphql() wants data or a well-formed errors[]', async (t) => {
  t.equal(checkGraphql(answer(200, { data: { block: null } })), undefined)
  t.equal(checkGraphql(answer(200, { data: null, errors: [{ message: 'x', extensions: { code: 'NOT_FOUND' } }] })), undefined)
  t.equal(checkGraphql(answer(400, { data: null, errors: [{ message: 'Request body is too large' }] })), undefined)
  t.match(checkGraphql(answer(400, { message: 'Bad request' })), /without errors/)
  t.match(checkGraphql(answer(200, { errors: [] })), /malformed errors/)
  t.match(checkGraphql(answer(200, { errors: [{ code: 1 }] })), /malformed errors/)
})

t.test('checkEtherscan() wants the envelope', async (t) => {
  t.equal(checkEtherscan(answer(200, { status: '0', message: 'Invalid block number', result: null })), undefined)
  t.match(checkEtherscan(answer(200, { status: 0, message: 'x', result: null })), /not an Etherscan envelope/)
  t.match(checkEtherscan(answer(200, { status: '1', message: 'OK' })), /not an Etherscan envelope/)
  t.equal(checkEtherscan(answer(400, { message: 'Unknown action' })), undefined)
})

t.test('checkEtherscan() takes module=proxy\'s JSON-RPC objects: a result or a documented error', async (t) => {
  t.equal(checkEtherscan(answer(200, { jsonrpc: '2.0', id: 1, result: '0x10' })), undefined)
  t.equal(checkEtherscan(answer(200, { jsonrpc: '2.0', id: 1, result: null })), undefined)
  t.equal(checkEtherscan(answer(200, { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params', data: 'txhash is required' } })), undefined)
  t.match(checkEtherscan(answer(200, { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } })), /neither a result nor a documented error/)
  t.match(checkEtherscan(answer(200, { jsonrpc: '2.0', id: 1 })), /neither a result nor a documented error/)
  t.match(checkEtherscan(answer(200, { jsonrpc: '2.0', result: '0x1' })), /not an Etherscan envelope/)
})
