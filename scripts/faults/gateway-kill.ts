// (c) The gateway killed with SIGKILL, in the middle of a backfill and while
// following the head: started again, it resumes, and the index ends identical
// to the node's chain (verify-index), nothing missing or twice.
import { setTimeout as sleep } from 'node:timers/promises'
import { waitFor } from '../lib/gateway-process.ts'
import { createScenarioRecord, expectRecovered, type FaultContext, type ScenarioResult } from './context.ts'
import { startTransfers } from './traffic.ts'

const FOLLOW_BEFORE_KILL_MS = 3000
const FOLLOW_AFTER_RESTART_MS = 3000

/** Starts the first gateway on the empty index itself: the kill must land in its backfill. */
export async function gatewayKillMidBackfill (context: FaultContext, chainHead: number): Promise<ScenarioResult> {
  const record = createScenarioRecord('gateway-kill-backfill', 'gateway SIGKILL mid-backfill')
  await context.startGateway()
  // The first indexed block shows the backfill is under way; the kill follows at once.
  const indexed = await waitFor('the backfill to begin', async () => {
    const { body } = await context.gateway.health()
    return typeof body.indexer?.head === 'number' && body.indexer.head >= 0 ? body.indexer.head as number : undefined
  }, context.timeoutMs)
  await context.killGateway()
  record.figure(`killed with block ${indexed} of ${chainHead} indexed`)
  record.expect(indexed < chainHead, `the backfill had finished (block ${indexed} of ${chainHead}) before the kill: make the chain longer (FAULTS_CHAIN_BLOCKS)`)
  await context.startGateway()
  await expectRecovered(context, record)
  return record.result()
}

export async function gatewayKillFollowing (context: FaultContext): Promise<ScenarioResult> {
  const record = createScenarioRecord('gateway-kill-head', 'gateway SIGKILL while following the head')
  const transfers = startTransfers(() => context.gateway.url, context.sender)
  try {
    await sleep(FOLLOW_BEFORE_KILL_MS)
    const { body } = await context.gateway.health()
    await context.killGateway()
    record.figure(`killed at indexed block ${String(body.indexer?.head)} with transfers flowing`)
    await context.startGateway()
    await sleep(FOLLOW_AFTER_RESTART_MS)
  } finally {
    const { sent, failed } = await transfers.stop()
    record.figure(`${sent} transfers sent (${failed} refused while it was down)`)
  }
  await expectRecovered(context, record)
  return record.result()
}
