// (d) A reorg several blocks deep: Geth's head is set back (debug_setHead on
// its private RPC, as test/core/indexer/indexer.test.ts does) and new
// transfers seal other blocks at those heights; the indexer rolls back to the
// common ancestor and the index ends identical to the node's chain.
import { setTimeout as sleep } from 'node:timers/promises'
import { readEndpoints } from '../../core/endpoints.ts'
import { createRpcClient } from '../../core/rpc/client.ts'
import { createScenarioRecord, expectRecovered, type FaultContext, type ScenarioResult } from './context.ts'
import { nodeHead, startTransfers } from './traffic.ts'
import { waitFor } from '../lib/gateway-process.ts'

const RPC_TIMEOUT_MS = 10_000

export async function reorg (context: FaultContext, depth: number): Promise<ScenarioResult> {
  const record = createScenarioRecord('reorg', `reorg ${depth} blocks deep`)
  const endpoints = await readEndpoints(context.dataDir)
  if (endpoints === undefined) throw new Error('no endpoints.json: is the gateway running?')
  const rpc = createRpcClient({ url: endpoints.geth_rpc_url, timeoutMs: RPC_TIMEOUT_MS })
  try {
    const head = await context.catchUp()
    const forkAt = head - depth
    await rpc.call('debug_setHead', ['0x' + forkAt.toString(16)])
    const transfers = startTransfers(() => context.gateway.url, context.sender)
    try {
      // Past the old head: the new branch is longer, as a real reorg's is.
      await waitFor(`the new branch to pass block ${head}`, async () => await nodeHead(context.gateway.url) > head ? true : undefined, context.timeoutMs)
      await sleep(500)
    } finally {
      await transfers.stop()
    }
    record.figure(`head ${head} set back to ${forkAt}, new branch sealed`)
    await expectRecovered(context, record)
    const rollback = context.gateway.lines.find((l) => l.msg === 'reorg: rolled back to the common ancestor' && Number(l.ancestor) <= forkAt)
    record.expect(rollback !== undefined, 'the indexer logged no rollback to the fork point')
    if (rollback !== undefined) record.figure(`indexer rolled back to ${String(rollback.ancestor)}`)
  } finally {
    await rpc.close()
  }
  return record.result()
}
