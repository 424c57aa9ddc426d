// Premium JSON-RPC: traces (debug_trace* with Geth's built-in tracers) and
// txpool_status for premium API keys, -32004 for everyone else; each trace
// weighs RPC_TRACE_WEIGHT of the key's budget, runs under the timeout cap and
// is refused whole over RPC_TRACE_MAX_BYTES. eth_getProof and
// eth_createAccessList for everyone, kept as other state reads are.
import t from 'tap'
import type { InjectOptions } from 'fastify'
import pino from 'pino'
import { build, postRpc } from '../../helper.ts'
import { connectWsRpc, wsUrlOf } from '../../support/ws-rpc.ts'
import { createSender } from '../../support/verify.ts'
import { LOGGER_INIT_CODE } from '../../support/blocks.ts'
import { createApiKey } from '../../../core/api-keys/store.ts'
import { createJsonRpcHandler } from '../../../core/json-rpc/handler.ts'
import { loadDevAccounts } from '../../../core/json-rpc/dev-accounts.ts'

const WEIGHT = 7
const MAX_BYTES = 65_536
/**
 * Runtime `JUMPDEST PUSH1 0 JUMP` (a loop until its gas runs out) behind an
 * init code that returns it: a call with 3,000,000 gas is 750,000 steps,
 * whose struct log is megabytes.
 */
const LOOP_INIT_CODE = '0x635b6000566000526004601cf3'

const { app, url, chain } = await build(t, {
  RATE_LIMIT_ENABLED: 'true',
  RPC_TRACE_WEIGHT: String(WEIGHT),
  RPC_TRACE_MAX_BYTES: String(MAX_BYTES)
})
const rpc = app.geth.rpc
const sender = createSender(rpc, chain.account)
const logger = await sender.deploy(LOGGER_INIT_CODE)
const loggerCall = await sender.send(logger.address, '0x')
const loop = await sender.deploy(LOOP_INIT_CODE)
const loopCall = await sender.send(loop.address, '0x')
const { key } = await createApiKey(app.db.knex, { label: 'traces', tier: 'premium' })
const { key: publicKey } = await createApiKey(app.db.knex, { label: 'not-premium', tier: 'public' })
const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params })
const premium = async (body: unknown) => await postRpc(url, body, `/rpc/${key}`)
const geth = async (method: string, params: unknown[]) => await rpc.call<any>(method, params)

t.test('a premium key traces a transaction with callTracer and with the struct logger', async (t) => {
  const { status, json } = await premium(call('debug_traceTransaction', [loggerCall, { tracer: 'callTracer' }], 'c'))
  t.equal(status, 200)
  t.equal(json.id, 'c')
  t.equal(json.result.type, 'CALL')
  t.equal(json.result.to, logger.address)
  t.same(json.result, await geth('debug_traceTransaction', [loggerCall, { tracer: 'callTracer' }]), 'Geth\'s own answer')
  const structLogs = (await premium(call('debug_traceTransaction', [loggerCall]))).json.result
  t.equal(structLogs.failed, false)
  t.same(structLogs.structLogs.map((s: { op: string }) => s.op), ['PUSH1', 'PUSH1', 'LOG0', 'STOP'])
  t.notOk('memory' in structLogs.structLogs[2], 'no memory at each step')
  const withMemory = (await premium(call('debug_traceTransaction', [loggerCall, { enableMemory: true }]))).json.result
  t.notOk('memory' in withMemory.structLogs[2], 'enableMemory is held off')
  const before = app.jsonRpcCache!.stats()
  await premium(call('debug_traceTransaction', [loggerCall, { tracer: 'callTracer' }]))
  const after = app.jsonRpcCache!.stats()
  t.same([after.hits, after.misses], [before.hits, before.misses], 'a trace never goes through the cache')
})

t.test('every trace method and built-in tracer answers a premium key, over HTTP and its WebSocket', async (t) => {
  const receipt = await geth('eth_getTransactionReceipt', [loggerCall])
  const answers = (await premium([
    call('debug_traceBlockByNumber', [receipt.blockNumber, { tracer: 'callTracer' }], 1),
    call('debug_traceBlockByHash', [receipt.blockHash, { tracer: 'prestateTracer' }], 2),
    call('debug_traceCall', [{ to: logger.address }, 'latest', { tracer: '4byteTracer' }], 3),
    call('debug_traceCall', [{ to: logger.address }, 'latest', { tracer: 'noopTracer' }], 4),
    call('eth_chainId', [], 5)
  ])).json
  t.same(answers.map((a: { id: number }) => a.id), [1, 2, 3, 4, 5])
  t.equal(answers[0].result[0].txHash, loggerCall)
  t.equal(answers[0].result[0].result.to, logger.address)
  t.ok(answers[1].result[0].result[logger.address], 'the prestate names the contract')
  t.same(answers[2].result, {})
  t.same(answers[3].result, {})
  t.equal(answers[4].result, '0xc1cbc')
  const socket = await connectWsRpc(t, wsUrlOf(url, `/rpc/${key}`))
  t.equal((await socket.call('debug_traceTransaction', [loggerCall, { tracer: 'callTracer' }], 9)).result.to, logger.address)
  const publicSocket = await connectWsRpc(t, wsUrlOf(url, '/ws'))
  t.equal((await publicSocket.call('debug_traceTransaction', [loggerCall, { tracer: 'callTracer' }], 9)).error.code, -32004, 'a public socket is refused')
})

t.test('a public client, or a key not premium, is refused with -32004; a batch\'s other items are answered', async (t) => {
  for (const path of ['/rpc', '/', `/rpc/${publicKey}`]) {
    for (const [method, params] of [['debug_traceTransaction', [loggerCall, { tracer: 'callTracer' }]], ['debug_traceCall', [{ to: logger.address }]],
      ['debug_traceBlockByNumber', ['0x1']], ['debug_traceBlockByHash', [loggerCall]], ['txpool_status', []]] as const) {
      const { status, json } = await postRpc(url, call(method, [...params], 3), path)
      t.equal(status, 200)
      t.same(json, { jsonrpc: '2.0', id: 3, error: { code: -32004, message: 'Method reserved to premium API keys', data: `${method} is served to premium API keys only: send one (POST /rpc/<key>, or the x-api-key header)` } }, `${path} ${method}`)
    }
  }
  const { json } = await postRpc(url, [call('debug_traceTransaction', [loggerCall], 1), call('eth_chainId', [], 2)])
  t.equal(json[0].error.code, -32004)
  t.equal(json[1].result, '0xc1cbc')
})

t.test('a JavaScript tracer is refused for a premium key too, with -32602 naming the built-in ones', async (t) => {
  const jsTracer = '{data: [], fault: function (log) {}, step: function (log) { this.data.push(log.op.toString()) }, result: function () { return this.data }}'
  for (const tracer of [jsTracer, 'opcountTracer', 'muxTracer']) {
    const { json } = await premium(call('debug_traceTransaction', [loggerCall, { tracer }]))
    t.equal(json.error.code, -32602, tracer)
    t.match(json.error.data, /^param 1 \(options\): tracer: only Geth's built-in tracers are served \(callTracer, prestateTracer, 4byteTracer, noopTracer, or none for the struct logger\), never a JavaScript tracer/)
  }
  t.equal((await premium(call('debug_traceCall', [{ to: logger.address }, 'latest', { tracer: jsTracer }]))).json.error.code, -32602)
})

t.test('a trace spends RPC_TRACE_WEIGHT of a premium key\'s budget; a refused one costs a public client one request', async (t) => {
  const inject = async (body: unknown, headers: Record<string, string>, remoteAddress: string) =>
    await app.inject({ method: 'POST', url: '/rpc', remoteAddress, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) } as InjectOptions)
  const remaining = (response: { headers: Record<string, unknown> }) => Number(response.headers['x-ratelimit-remaining'])
  const keyed = { 'x-api-key': key }
  const before = remaining(await inject(call('eth_chainId'), keyed, '10.1.0.1'))
  const afterTrace = remaining(await inject(call('debug_traceTransaction', [loggerCall, { tracer: 'callTracer' }]), keyed, '10.1.0.1'))
  t.equal(before - afterTrace, WEIGHT)
  const afterBatch = remaining(await inject([call('debug_traceTransaction', [loggerCall, { tracer: 'callTracer' }], 1), call('eth_chainId', [], 2)], keyed, '10.1.0.1'))
  t.equal(afterTrace - afterBatch, WEIGHT + 1, 'each item of a batch, a trace at its weight')
  const escaped = JSON.stringify(call('debug_traceTransaction', [loggerCall, { tracer: 'callTracer' }])).replace('debug_', 'debug\\u005f')
  const afterEscaped = remaining(await app.inject({ method: 'POST', url: '/rpc', remoteAddress: '10.1.0.1', headers: { 'content-type': 'application/json', ...keyed }, payload: escaped }))
  t.equal(afterBatch - afterEscaped, WEIGHT, 'a method name spelt with escapes weighs the same')
  const publicBefore = remaining(await inject(call('eth_chainId'), {}, '10.1.0.2'))
  const publicAfter = remaining(await inject(call('debug_traceTransaction', [loggerCall]), {}, '10.1.0.2'))
  t.equal(publicBefore - publicAfter, 1)
})

t.test('over a WebSocket opened with a premium key, each trace spends RPC_TRACE_WEIGHT too', async (t) => {
  // The upgrade spends 1, the first trace 7 and two reads 2 of 10: a second trace would make 17.
  const { key: smallKey } = await createApiKey(app.db.knex, { label: 'ten-a-minute', tier: 'premium', limitPerMin: 10 })
  const socket = await connectWsRpc(t, wsUrlOf(url, `/rpc/${smallKey}`))
  const trace = (id: number) => socket.call('debug_traceTransaction', [loggerCall, { tracer: 'callTracer' }], id)
  t.equal((await trace(1)).result.to, logger.address)
  t.equal((await socket.call('eth_chainId', [], 2)).result, '0xc1cbc')
  t.equal((await socket.call('eth_chainId', [], 3)).result, '0xc1cbc')
  t.same((await trace(4)).error.code, -32005, 'a second trace is over the limit')
})

t.test('a trace over RPC_TRACE_MAX_BYTES answers -32005, never a cut answer; a smaller one asked is served', async (t) => {
  const { status, json } = await premium(call('debug_traceTransaction', [loopCall], 4))
  t.equal(status, 200)
  t.same(json.error.code, -32005)
  t.equal(json.id, 4)
  t.match(json.error.data, `the trace is larger than ${MAX_BYTES} bytes (RPC_TRACE_MAX_BYTES)`)
  const block = (await geth('eth_getTransactionReceipt', [loopCall])).blockNumber
  t.equal((await premium(call('debug_traceBlockByNumber', [block]))).json.error.code, -32005, 'a block trace too')
  const limited = (await premium(call('debug_traceTransaction', [loopCall, { limit: 100, disableStack: true }]))).json.result
  t.equal(limited.structLogs.length, 100, 'the client\'s own limit')
  const calls = (await premium(call('debug_traceTransaction', [loopCall, { tracer: 'callTracer' }]))).json.result
  t.equal(calls.error, 'out of gas', 'callTracer\'s answer is small')
})

t.test('a trace runs no longer than the timeout cap, whatever timeout it asks', async (t) => {
  const devAccounts = await loadDevAccounts({ file: undefined, rpc, chainId: 793788, timeoutMs: 30_000 })
  t.teardown(() => devAccounts.close())
  const handler = createJsonRpcHandler({
    rpc,
    chainId: 793788,
    limits: { maxBatch: 100, maxLogRange: 10_000, maxLogResults: 10_000, traceTimeoutMs: 1, traceMaxBytes: MAX_BYTES },
    devAccounts,
    log: pino({ level: 'silent' })
  })
  const body = JSON.stringify(call('debug_traceTransaction', [loopCall, { tracer: 'callTracer', timeout: '60s' }], 5))
  const capped = JSON.parse((await handler.handle(body, undefined, true)).body!)
  t.equal(capped.error.code, -32000)
  t.match(capped.error.message, /execution timeout/)
  const served = (await premium(JSON.parse(body))).json
  t.equal(served.result.error, 'out of gas', 'the gateway\'s own 5 s cap lets the same trace finish')
})

t.test('eth_getProof and eth_createAccessList answer everyone, kept at latest as other state reads', async (t) => {
  const proofParams = [logger.address, ['0x0'], 'latest']
  const proof = await postRpc(url, call('eth_getProof', proofParams))
  t.same(proof.json.result, await geth('eth_getProof', proofParams))
  t.equal(proof.json.result.address, logger.address)
  const accessParams = [{ from: chain.account.address, to: logger.address }, 'latest']
  const access = await postRpc(url, call('eth_createAccessList', accessParams))
  t.same(access.json.result, await geth('eth_createAccessList', accessParams))
  const hits = app.jsonRpcCache!.stats().hits
  t.same((await postRpc(url, call('eth_getProof', proofParams, 2))).json, { jsonrpc: '2.0', id: 2, result: proof.json.result })
  t.same((await postRpc(url, call('eth_createAccessList', accessParams, 3))).json, { jsonrpc: '2.0', id: 3, result: access.json.result })
  t.equal(app.jsonRpcCache!.stats().hits, hits + 2, 'both answered from the cache')
  const pending = app.jsonRpcCache!.stats()
  await postRpc(url, call('eth_createAccessList', [accessParams[0]]))
  await postRpc(url, call('eth_createAccessList', [accessParams[0]]))
  t.equal(app.jsonRpcCache!.stats().hits, pending.hits, 'without a block (Geth\'s pending): never kept')
  t.equal((await postRpc(url, call('eth_getProof', [logger.address, Array.from({ length: 1001 }, () => '0x0')]))).json.error.code, -32602, 'at most 1,000 keys')
})

t.test('txpool_status answers a premium key', async (t) => {
  const { json } = await premium(call('txpool_status'))
  t.same(json.result, await geth('txpool_status', []))
})
