// Log filters read through another gateway instance than the one that made
// them: both proxy to one Geth, which holds the filter, so any instance can
// serve it. The log limits hold wherever it is read: the result cap from the
// answer itself, the block range from the criteria the making instance kept
// in the database.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../helper.ts'
import { sealBlocks } from '../../support/blocks.ts'
import { buildSecondInstance } from '../../support/second-instance.ts'

const LIMITS = { RPC_MAX_LOG_RANGE: '100', RPC_MAX_LOG_RESULTS: '5' }
const first = await build(t, LIMITS)
const a = first.app
const b = await buildSecondInstance(t, first, LIMITS)
const { chain } = first

const call = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params })
async function rpc (app: FastifyInstance, body: unknown): Promise<any> {
  return (await app.inject({ method: 'POST', url: '/rpc', payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } })).json()
}

t.test('a filter made on one instance and read on another is held to the result cap there', async (t) => {
  const logged = await sealBlocks({ rpc: a.geth.rpc, wallets: [chain.account], rounds: 8 })
  const range = { fromBlock: '0x0', toBlock: '0x' + logged.head.toString(16), address: logged.logger }
  t.equal((await rpc(b, call('eth_getLogs', [range]))).error?.code, -32005, 'eth_getLogs on b: 7 logs, over RPC_MAX_LOG_RESULTS')
  const wide = (await rpc(a, call('eth_newFilter', [range]))).result
  t.type(wide, 'string', 'made on a')
  const logs = await rpc(b, call('eth_getFilterLogs', [wide]))
  t.equal(logs.error?.code, -32005, 'eth_getFilterLogs on b has the same cap')
  t.match(logs.error?.data, /more than 5 results/)

  // Each sealBlocks() deploys its own logging contract: the new logs are at another address.
  const fromHead = (await rpc(a, call('eth_newFilter', [{}]))).result
  const block = (await rpc(a, call('eth_newBlockFilter'))).result
  await sealBlocks({ rpc: a.geth.rpc, wallets: [chain.account], rounds: 7 })
  const changes = await rpc(b, [call('eth_getFilterChanges', [fromHead], 1), call('eth_chainId', [], 2)])
  t.equal(changes[0].error?.code, -32005, 'eth_getFilterChanges on b finding 6 new logs is refused')
  t.equal(changes[1].result, '0xc1cbc')
  const hashes = await rpc(b, call('eth_getFilterChanges', [block]))
  t.ok(hashes.result?.length > 5, 'a block filter\'s hashes are no logs: they pass')

  const few = (await rpc(a, call('eth_newFilter', [{ ...range, fromBlock: '0x' + (logged.head - 1).toString(16) }]))).result
  const served = (await rpc(b, call('eth_getFilterLogs', [few]))).result
  t.ok(Array.isArray(served) && served.length >= 1 && served.length <= 5, 'a filter within the caps is served on b')
})

t.test('a filter without toBlock made on one instance is refused on another once it spans more than RPC_MAX_LOG_RANGE', async (t) => {
  const head = Number(await a.geth.rpc.call<string>('eth_blockNumber'))
  const growing = (await rpc(a, call('eth_newFilter', [{ fromBlock: '0x' + head.toString(16), address: '0x' + 'ab'.repeat(20) }]))).result
  t.same((await rpc(b, call('eth_getFilterLogs', [growing]))).result, [], 'served on b while within the range')
  const { rows: [row] } = await a.db.knex.raw('select criteria from log_filters where id = ?', [growing])
  t.same(row?.criteria, { fromBlock: '0x' + head.toString(16), address: '0x' + 'ab'.repeat(20) }, 'its criteria are in the database')
  await sealBlocks({ rpc: a.geth.rpc, wallets: [chain.account], rounds: 101 })
  for (const method of ['eth_getFilterLogs', 'eth_getFilterChanges']) {
    const answer = await rpc(b, call(method, [growing]))
    t.equal(answer.error?.code, -32005, `${method} on b: a filter that grew past the range is refused`)
    t.match(answer.error?.data, /larger than the limit of 100/)
  }
  t.equal((await rpc(b, call('eth_uninstallFilter', [growing]))).result, true, 'uninstalled through b')
  await new Promise((resolve) => setTimeout(resolve, 200))
  const { rows } = await a.db.knex.raw('select 1 from log_filters where id = ?', [growing])
  t.equal(rows.length, 0, 'and forgotten in the database')
})
