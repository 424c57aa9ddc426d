// createRpcClient() on a real Geth.
import t from 'tap'
import pino from 'pino'
import { loadConfig } from '../../../core/config.ts'
import { createGethNode } from '../../../geth/node.ts'
import { RpcResponseError } from '../../../core/rpc/client.ts'
import { createTestChainFiles } from '../../support/chain.ts'

const chain = await createTestChainFiles(t)
const node = await createGethNode({ config: loadConfig({ ...process.env, ...chain.env }), log: pino({ level: 'warn' }) })
await node.start()
t.teardown(async () => await node.stop())

t.test('batch() splits more calls than Geth takes in one batch (1000)', async (t) => {
  const calls = Array.from({ length: 1500 }, (_, i) => ({ method: 'eth_getBalance', params: ['0x' + i.toString(16).padStart(40, '0'), 'latest'] }))
  const results = await node.rpc.batch<string>(calls)
  t.equal(results.length, 1500)
  t.ok(results.every((r) => r === '0x0'))
  const raw = await node.rpc.send(JSON.stringify(calls.map((c, id) => ({ jsonrpc: '2.0', id, ...c }))))
  t.match(raw.body, /batch too large/, 'Geth itself refuses the whole batch')
})

t.test('batch() rejects with the item\'s method when the node refuses one', async (t) => {
  const err = await node.rpc.batch([{ method: 'eth_blockNumber', params: [] }, { method: 'eth_getBlockByNumber', params: ['0x0'] }]).catch((e: unknown) => e)
  t.ok(err instanceof RpcResponseError)
  t.match((err as Error).message, /^eth_getBlockByNumber: /)
})
