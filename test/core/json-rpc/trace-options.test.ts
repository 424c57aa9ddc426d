import t from 'tap'
import { MIN_STRUCT_LOG_BYTES, durationMs, limitTraceParams } from '../../../core/json-rpc/trace-options.ts'
import { validateParams } from '../../../core/json-rpc/methods.ts'
import { rpcCost } from '../../../core/json-rpc/rpc-items.ts'

const HASH = '0x' + '12'.repeat(32)
const ADDRESS = '0x' + 'ab'.repeat(20)
const LIMITS = { traceTimeoutMs: 2000, traceMaxBytes: 47_000 }

t.test('durationMs() reads Go durations and nothing else', async (t) => {
  t.equal(durationMs('5s'), 5000)
  t.equal(durationMs('500ms'), 500)
  t.equal(durationMs('1m30s'), 90_000)
  t.equal(durationMs('1.5s'), 1500)
  t.equal(durationMs('250us'), 0.25)
  for (const bad of ['', '5', 's', '-1s', '5 s', '5sec', '1d', '5s ']) t.equal(durationMs(bad), undefined, bad)
})

t.test('the trace methods take only Geth\'s built-in tracers: a JavaScript tracer is refused naming them', async (t) => {
  for (const tracer of ['callTracer', 'prestateTracer', '4byteTracer', 'noopTracer']) {
    t.same(validateParams('debug_traceTransaction', [HASH, { tracer }]), { params: [HASH, { tracer }] }, tracer)
  }
  t.same(validateParams('debug_traceTransaction', [HASH]), { params: [HASH] }, 'no options: the struct logger')
  const refused = [
    ['debug_traceTransaction', [HASH, { tracer: '{ data: [], step: function (log) {}, fault: function () {}, result: function () { return 1 } }' }]],
    ['debug_traceTransaction', [HASH, { tracer: 'muxTracer', tracerConfig: { '{result: function () {}}': {} } }]],
    ['debug_traceTransaction', [HASH, { tracer: 'opcountTracer' }]],
    ['debug_traceTransaction', [HASH, { tracer: '' }]],
    ['debug_traceBlockByNumber', ['0x1', { tracer: 'CallTracer' }]],
    ['debug_traceBlockByHash', [HASH, { tracer: 'unigramTracer' }]],
    ['debug_traceCall', [{ to: ADDRESS }, 'latest', { tracer: 'bigramTracer' }]]
  ] as const
  for (const [method, params] of refused) {
    const result = validateParams(method, [...params])
    t.ok('reason' in result && /param \d \(options\): tracer: only Geth's built-in tracers are served \(callTracer, prestateTracer, 4byteTracer, noopTracer/.test(result.reason), JSON.stringify(result))
  }
})

t.test('the trace options are checked as Geth reads them', async (t) => {
  const cases: Array<[string, unknown[], RegExp]> = [
    ['debug_traceTransaction', [HASH, { timeout: 5 }], /timeout: expected a positive Go duration/],
    ['debug_traceTransaction', [HASH, { timeout: '0s' }], /timeout/],
    ['debug_traceTransaction', [HASH, { limit: -1 }], /limit/],
    ['debug_traceTransaction', [HASH, { reexec: 100000 }], /reexec: expected an integer 0\.\.128/],
    ['debug_traceTransaction', [HASH, { disableStack: 'yes' }], /disableStack/],
    ['debug_traceTransaction', [HASH, { tracer: 'callTracer', tracerConfig: 'top' }], /tracerConfig: expected an object/],
    ['debug_traceTransaction', [HASH, 'callTracer'], /param 1 \(options\): expected an object/],
    ['debug_traceCall', [{ to: ADDRESS }, 'latest', { stateOverrides: { nope: {} } }], /stateOverrides/],
    ['debug_traceBlockByNumber', ['next'], /param 0 \(block\)/]
  ]
  for (const [method, params, reason] of cases) {
    const result = validateParams(method, params)
    t.ok('reason' in result && reason.test(result.reason), `${method} ${JSON.stringify(params)}: ${JSON.stringify(result)}`)
  }
  t.same(validateParams('debug_traceCall', [{ to: ADDRESS }]), { params: [{ to: ADDRESS }, 'latest'] }, 'the block defaults to latest')
})

t.test('limitTraceParams() caps the timeout, and holds the struct logger to the size cap', async (t) => {
  const maxSteps = Math.floor(LIMITS.traceMaxBytes / MIN_STRUCT_LOG_BYTES) + 1
  t.same(limitTraceParams('debug_traceTransaction', [HASH], LIMITS), [HASH, { timeout: '2000ms', enableMemory: false, debug: false, limit: maxSteps }])
  t.same(limitTraceParams('debug_traceTransaction', [HASH, { tracer: 'callTracer', timeout: '60s' }], LIMITS), [HASH, { tracer: 'callTracer', timeout: '2000ms' }])
  t.same(limitTraceParams('debug_traceTransaction', [HASH, { tracer: 'callTracer', timeout: '300ms' }], LIMITS), [HASH, { tracer: 'callTracer', timeout: '300ms' }], 'a shorter timeout is kept')
  t.same(limitTraceParams('debug_traceBlockByNumber', ['0x1', { enableMemory: true, debug: true, limit: 10, disableStorage: true }], LIMITS),
    ['0x1', { enableMemory: false, debug: false, limit: 10, disableStorage: true, timeout: '2000ms' }], 'a smaller limit is kept')
  t.same(limitTraceParams('debug_traceBlockByHash', [HASH, { limit: 10 ** 9 }], LIMITS)[1], { limit: maxSteps, timeout: '2000ms', enableMemory: false, debug: false })
  t.same(limitTraceParams('debug_traceCall', [{ to: ADDRESS }, 'latest', { tracer: 'prestateTracer' }], LIMITS), [{ to: ADDRESS }, 'latest', { tracer: 'prestateTracer', timeout: '2000ms' }])
  t.ok(maxSteps * MIN_STRUCT_LOG_BYTES > LIMITS.traceMaxBytes, 'a struct log stopped at the limit is over the size cap: refused, never served cut short')
})

t.test('rpcCost() weighs trace calls, however their method is spelt', async (t) => {
  const trace = { jsonrpc: '2.0', id: 1, method: 'debug_traceTransaction', params: [HASH] }
  const read = { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] }
  t.equal(rpcCost(JSON.stringify(trace), 10).cost, 10)
  t.equal(rpcCost(JSON.stringify(trace)).cost, 1, 'unweighted: one request')
  t.equal(rpcCost(JSON.stringify(read), 10).cost, 1)
  t.equal(rpcCost(JSON.stringify(trace).replace('debug_', 'debug\\u005f'), 10).cost, 10, 'an escaped name is read as JSON reads it')
  t.equal(rpcCost(JSON.stringify([trace, read, trace]), 10).cost, 21)
  t.equal(rpcCost('{"method":"debug_traceTransaction"', 10).cost, 1, 'not JSON: one (refused) request')
})
