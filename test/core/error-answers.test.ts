// core/error-answers.ts: one classification and one body per channel. A coded
// error keeps its status and message in every channel, a 5xx included; any
// other failure is hidden behind each channel's bare 500.
import t from 'tap'
import {
  blockscoutErrorBody, etherscanErrorBody, gatewayErrorBody, graphqlCodeOf, graphqlErrorBody, graphqlErrorCodeOf, jsonRpcErrorBody, jsonRpcErrorOf, publicErrorOf, statsErrorBody, statsErrorStatus
} from '../../core/error-answers.ts'
import { FaucetEmptyError, NotFoundError, RateLimitedError, VerifyCompilerChecksumError } from '../../core/errors.ts'

const internal = publicErrorOf(new Error('secret detail'))
const faucetEmpty = publicErrorOf(new FaucetEmptyError('0xfa'))
const checksum = publicErrorOf(new VerifyCompilerChecksumError('0.8.1', '0xaa', '0xbb'))
const fastify400 = publicErrorOf(Object.assign(new Error('body/x must be string'), { statusCode: 400, code: 'FST_ERR_VALIDATION' }))

t.test('publicErrorOf: a 4xx is the client\'s, a coded 5xx keeps its status, anything else is a bare 500', async (t) => {
  t.same(publicErrorOf(new NotFoundError()), { kind: 'client', status: 404, code: 'GW_ERR_NOT_FOUND', message: 'Not found' })
  t.same(faucetEmpty, { kind: 'coded', status: 503, code: 'GW_ERR_FAUCET_EMPTY', message: 'The faucet account 0xfa has too little left for a drip; tell the operator' })
  t.same(internal, { kind: 'internal', status: 500, code: undefined, message: 'Internal server error' })
  t.same(publicErrorOf(Object.assign(new Error('x'), { code: 'GW_ERR_NOT_IN_THE_CATALOGUE' })).kind, 'internal', 'a code without a status is not one of ours')
  t.same(publicErrorOf(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' })).code, 'GW_ERR_DATABASE_UNAVAILABLE')
})

t.test('the gateway\'s body: {statusCode, code, error, message}; an internal failure without a code', async (t) => {
  t.same(JSON.stringify(gatewayErrorBody(faucetEmpty)), JSON.stringify({ statusCode: 503, code: 'GW_ERR_FAUCET_EMPTY', error: 'Service Unavailable', message: faucetEmpty.message }))
  t.same(JSON.stringify(gatewayErrorBody(publicErrorOf(new RateLimitedError()))), '{"statusCode":429,"code":"GW_ERR_RATE_LIMITED","error":"Too Many Requests","message":"Too many requests"}')
  t.same(JSON.stringify(gatewayErrorBody(internal)), '{"statusCode":500,"error":"Internal Server Error","message":"Internal server error"}')
})

t.test('Blockscout\'s, the Etherscan-style and the Stats API\'s bodies keep a coded 5xx\'s message and hide an internal one', async (t) => {
  t.same(blockscoutErrorBody(checksum), { message: checksum.message })
  t.same(blockscoutErrorBody(internal), { message: 'Internal server error' })
  t.same(etherscanErrorBody(faucetEmpty), { status: '0', message: 'NOTOK', result: faucetEmpty.message })
  t.same(etherscanErrorBody(internal), { status: '0', message: 'NOTOK', result: 'Something went wrong.' })
  t.same(statsErrorBody(faucetEmpty), { code: 14, message: faucetEmpty.message })
  t.same(statsErrorBody(checksum), { code: 13, message: checksum.message })
  t.same(statsErrorBody(internal), { code: 13, message: 'internal error' })
  t.same(statsErrorBody(fastify400), { code: 3, message: 'body/x must be string' })
  t.equal(statsErrorStatus(publicErrorOf(Object.assign(new Error('too large'), { statusCode: 413 }))), 400, 'the service answers any request it cannot take 400')
  t.equal(statsErrorStatus(publicErrorOf(Object.assign(new Error('gone'), { statusCode: 404 }))), 400, 'a thrown 404 too (its routes answer their own)')
  t.equal(statsErrorStatus(publicErrorOf(new RateLimitedError())), 429, 'a coded refusal keeps its status')
  t.equal(statsErrorStatus(checksum), 502)
})

t.test('JSON-RPC: the error for each id, by class; GraphQL codes without the prefix', async (t) => {
  t.same(jsonRpcErrorBody(7, jsonRpcErrorOf(internal)), { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error' } })
  t.same(jsonRpcErrorBody([1, 2], jsonRpcErrorOf(faucetEmpty)), [1, 2].map((id) => ({ jsonrpc: '2.0', id, error: { code: -32002, message: 'Resource unavailable', data: faucetEmpty.message } })))
  t.same(jsonRpcErrorBody(null, jsonRpcErrorOf(fastify400, 'INVALID_REQUEST')), { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request', data: 'body/x must be string' } })
  t.equal(graphqlCodeOf('GW_ERR_DATABASE_UNAVAILABLE'), 'DATABASE_UNAVAILABLE')
})

t.test('GraphQL outside an operation: a coded error\'s code, BAD_REQUEST, or INTERNAL_SERVER_ERROR', async (t) => {
  t.equal(graphqlErrorCodeOf(faucetEmpty), 'FAUCET_EMPTY')
  t.equal(graphqlErrorCodeOf(fastify400), 'BAD_REQUEST')
  t.equal(graphqlErrorCodeOf(internal), 'INTERNAL_SERVER_ERROR')
  t.same(graphqlErrorBody('Too many requests', 'RATE_LIMITED'), { data: null, errors: [{ message: 'Too many requests', extensions: { code: 'RATE_LIMITED' } }] })
})
