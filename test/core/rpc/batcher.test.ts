// createRpcBatcher() on a real Geth: concurrent cheap reads share batches.
import t from 'tap'
import pino from 'pino'
import { loadConfig } from '../../../core/config.ts'
import { createRpcBatcher } from '../../../core/rpc/batcher.ts'
import type { RpcClient } from '../../../core/rpc/client.ts'
import { createGethNode } from '../../../geth/node.ts'
import { createTestChainFiles } from '../../support/chain.ts'

const chain = await createTestChainFiles(t)
const node = await createGethNode({ config: loadConfig({ ...process.env, ...chain.env }), log: pino({ level: 'warn' }) })
await node.start()
t.teardown(async () => await node.stop())

/** The real client, counting what it sends. */
function countingClient (rpc: RpcClient): RpcClient & { bodies: unknown[] } {
  const bodies: unknown[] = []
  return { ...rpc, bodies, send: async (body, signal) => { bodies.push(JSON.parse(body)); return await rpc.send(body, signal) } }
}

t.test('calls made in one turn go out as one batch, identical ones as one item', async (t) => {
  const rpc = countingClient(node.rpc)
  const batcher = createRpcBatcher(rpc)
  const calls = [
    ...Array.from({ length: 10 }, () => batcher.call('eth_blockNumber', [])),
    ...Array.from({ length: 10 }, () => batcher.call('eth_getBalance', [chain.account.address, 'latest'])),
    batcher.call('eth_getBalance', [node.keys!.faucet.address, 'latest']),
    batcher.call('eth_getBlockByNumber', ['0x0', false])
  ]
  const answers = await Promise.all(calls)
  t.equal(rpc.bodies.length, 1, 'one request to the node')
  t.equal((rpc.bodies[0] as unknown[]).length, 4, 'four distinct items')
  t.equal(answers[0]!.result, '0x0')
  t.equal(BigInt(answers[10]!.result as string), 10n ** 24n)
  t.equal(BigInt(answers[20]!.result as string), 10n ** 27n)
  t.match(answers[21]!.result, { number: '0x0' })
})

t.test('a lone call goes out as a plain request', async (t) => {
  const rpc = countingClient(node.rpc)
  const answer = await createRpcBatcher(rpc).call('eth_chainId', [])
  t.equal(answer.result, '0xc1cbc')
  t.notOk(Array.isArray(rpc.bodies[0]))
})

t.test('an item the node refuses fails alone', async (t) => {
  const batcher = createRpcBatcher(node.rpc)
  const [good, bad] = await Promise.all([batcher.call('eth_blockNumber', []), batcher.call('eth_getBlockByNumber', ['0x0'])])
  t.equal(good.result, '0x0')
  t.equal(bad.error?.code, -32602, 'Geth\'s own error for the item')
})

t.test('a large turn is split into batches of at most 50 and each call is asked once', async (t) => {
  const rpc = countingClient(node.rpc)
  const batcher = createRpcBatcher(rpc)
  const first = await Promise.all([batcher.call('eth_blockNumber', []), batcher.call('eth_gasPrice', [])])
  t.equal(first.length, 2)
  const many = await Promise.all(Array.from({ length: 120 }, (_, i) => batcher.call('eth_getBalance', ['0x' + i.toString(16).padStart(40, '0'), 'latest'])))
  t.equal(many.length, 120)
  t.ok(many.every((a) => a.result === '0x0'))
  const itemsSent = rpc.bodies.slice(1).reduce((n: number, b) => n + (Array.isArray(b) ? b.length : 1), 0)
  t.equal(itemsSent, 120, 'every distinct call was asked once')
  t.ok(rpc.bodies.slice(1).every((b) => !Array.isArray(b) || b.length <= 50), 'batches stay at most 50 items')
})

t.test('a node that is down rejects every waiting call', async (t) => {
  const batcher = createRpcBatcher({ ...node.rpc, send: async () => { throw new Error('down') } })
  await t.rejects(Promise.all([batcher.call('eth_blockNumber', []), batcher.call('eth_gasPrice', [])]), /down/)
})

t.test('an answer from another node than the local one (core/json-rpc/failover.ts) says so, alone or in a batch', async (t) => {
  // The real client, its answers marked as failover.ts marks an upstream's.
  const elsewhere: RpcClient = { ...node.rpc, send: async (body, signal) => ({ ...await node.rpc.send(body, signal), upstream: 'http://127.0.0.1:1' }) }
  const batcher = createRpcBatcher(elsewhere)
  t.match(await batcher.call('eth_blockNumber', []), { result: /^0x/, upstream: 'http://127.0.0.1:1' }, 'alone')
  const both = await Promise.all([batcher.call('eth_chainId', []), batcher.call('eth_getBlockByNumber', ['0x0', false])])
  t.match(both, [{ upstream: 'http://127.0.0.1:1' }, { upstream: 'http://127.0.0.1:1' }], 'in a batch')
  t.equal((await createRpcBatcher(node.rpc).call('eth_blockNumber', [])).upstream, undefined, 'the local node\'s are not marked')
})
